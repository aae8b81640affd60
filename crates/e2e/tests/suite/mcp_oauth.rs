//! Signing in to an OAuth MCP server in real Chromium: the server is saved as the options page
//! saves it; the startup connect stops at `needs_authorization` without opening a window; the
//! user's `mcp.connect` runs the sign-in through `chrome.identity.launchWebAuthFlow` against
//! the mock's authorization server on loopback (its authorize endpoint redirects at once to
//! `https://<extension-id>.chromiumapp.org/mcp`, which the browser catches), the code is
//! redeemed with the PKCE verifier, and the server reaches ready with the token.

use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use serde_json::json;

use super::mcp_calls::save;
use super::mcp_calls::wait_server;

#[test]
fn connect_signs_in_to_an_oauth_server_through_launch_web_auth_flow() {
    let mcp = MockMcp::start(MockMcpConfig {
        oauth: Some(MockOAuth::default()),
        ..MockMcpConfig::default()
    })
    .expect("start the MCP server");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let server = json!({"id": null, "name": "Signed", "url": mcp.url(), "auth": "oauth",
        "enabled": true, "connect": "startup", "disabledTools": []});
    save(&mut p, server);

    // The startup connect is background work: it asks for a sign-in, it does not start one.
    let waiting = wait_server(&mut p, "needs_authorization", |s| {
        s["status"]["state"] == "needs_authorization"
    });
    let reason = waiting["status"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("Sign in"), "{waiting:#}");
    assert!(mcp.token_requests().is_empty(), "no sign-in without the user");

    // The user presses Sign in.
    p.ops(&json!([{"send": {"type": "mcp.connect", "submissionId": "c", "serverId": "signed"},
        "until": "command.ack"}]))
        .expect("connect");
    let ready = wait_server(&mut p, "ready after the sign-in", |s| {
        s["status"]["state"] == "ready"
            || (s["status"]["state"] == "needs_authorization"
                && s["status"]["reason"].as_str().is_some_and(|r| r.contains("did not finish")))
            || s["status"]["state"] == "error"
    });
    assert_eq!(ready["status"]["state"], "ready", "{ready:#}");
    let exchanges: Vec<_> = mcp
        .token_requests()
        .into_iter()
        .filter(|form| form.iter().any(|(k, v)| k == "grant_type" && v == "authorization_code"))
        .collect();
    assert_eq!(exchanges.len(), 1, "one code redeemed");
    let redirect = exchanges[0].iter().find(|(k, _)| k == "redirect_uri").map(|(_, v)| v.clone());
    assert!(
        redirect.as_deref().is_some_and(|r| r.ends_with(".chromiumapp.org/mcp")),
        "{redirect:?}"
    );
    let sent: Vec<String> = mcp
        .requests()
        .into_iter()
        .filter_map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert!(sent.iter().any(|h| h.starts_with("Bearer ")), "the token is used: {sent:?}");
    assert!(!ready.to_string().contains("access-"), "a token never comes back to the page");
}
