//! Signing in to an OAuth MCP server in real Chromium: the server is saved as the options page
//! saves it; the startup connect stops at `needs_authorization` without opening a window; the
//! user's `mcp.connect` runs the sign-in through `chrome.identity.launchWebAuthFlow` against
//! the mock's authorization server on loopback (its authorize endpoint redirects at once to
//! `https://<extension-id>.chromiumapp.org/mcp`, which the browser catches), the code is
//! redeemed with the PKCE verifier, and the server reaches ready with the token.
//!
//! With its authorization server on another site (`auth.localhost`, which answers without CORS
//! headers, as many real token endpoints do), the status names both origins the sign-in needs,
//! learned by discovery in the background; the options page's Sign in click asks Chrome for
//! exactly those inside the click (the profile granted `*.localhost` before, so Chrome answers
//! without its dialog, which headless Chromium cannot show), and the sign-in then reaches the
//! authorization server it could not reach before.

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::sel;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use serde_json::Value;
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

/// Whether the extension may reach `origin` now (`chrome.permissions.contains`).
fn may_reach(p: &mut Panel, origin: &str) -> bool {
    let script =
        format!("chrome.permissions.contains({{ origins: [{}] }})", json!(format!("{origin}/*")));
    p.browser.cdp.evaluate(&p.driver, &script).expect("permissions.contains") == json!(true)
}

#[test]
fn sign_in_asks_for_the_authorization_server_s_site_inside_the_click() {
    let oauth =
        MockOAuth { authorization_host: Some("auth.localhost".into()), ..MockOAuth::default() };
    let mcp = MockMcp::start(MockMcpConfig { oauth: Some(oauth), ..MockMcpConfig::default() })
        .expect("start the MCP server");
    let port = mcp.url().trim_end_matches("/mcp").rsplit_once(':').expect("a port").1.to_owned();
    let (server_origin, auth_origin) =
        (format!("http://mcp.localhost:{port}"), format!("http://auth.localhost:{port}"));
    let mut options = PanelOptions::default();
    options.hosts.push("*.localhost".to_owned());
    options.granted_before.push("http://*.localhost/*".to_owned());
    let mut p = Panel::launch(options).expect("launch the side panel");
    let server = json!({"id": null, "name": "Signed", "url": format!("{server_origin}/mcp"),
        "auth": "oauth", "enabled": true, "connect": "startup", "disabledTools": []});
    save(&mut p, server);

    // Background discovery names the origins: the server's, then the authorization server's
    // (read from the resource metadata: its own metadata is out of reach without access).
    let waiting = wait_server(&mut p, "the sign-in's origins", |s| {
        s["status"]["state"] == "needs_authorization"
            && s["status"]["origins"].as_array().is_some_and(|o| o.len() >= 2)
    });
    assert_eq!(waiting["status"]["origins"], json!([server_origin, auth_origin]), "{waiting:#}");
    assert!(!may_reach(&mut p, &auth_origin) && !may_reach(&mut p, &server_origin));
    let granted_before = p.granted_origins().expect("getAll");

    // A connect that asks Chrome for nothing (an Op sent from outside the page) cannot sign
    // in: the browser blocks the authorization server's answers, and the status says so.
    p.ops(&json!([{"send": {"type": "mcp.connect", "submissionId": "c0", "serverId": "signed"},
        "until": "command.ack"}]))
        .expect("connect");
    let blocked = wait_server(&mut p, "a blocked sign-in naming its origins", |s| {
        s["status"]["reason"].as_str().is_some_and(|r| r.contains("blocking"))
            && s["status"]["origins"].as_array().is_some_and(|o| !o.is_empty())
    });
    assert_eq!(blocked["status"]["state"], "needs_authorization", "{blocked:#}");
    assert_eq!(blocked["status"]["origins"], json!([server_origin, auth_origin]), "{blocked:#}");
    assert!(mcp.token_requests().is_empty(), "{blocked:#}");

    // The options page (the driver) shows Sign in and which other site it needs.
    let button = ".mcp-server[data-server=signed] button.connect-mcp";
    let shown = format!(
        "document.querySelector({button:?})?.textContent.includes('Sign in') && \
         document.querySelector('.mcp-server[data-server=signed] .mcp-sign-in-sites')?.textContent.includes('auth.localhost')"
    );
    p.browser.cdp.wait_until(&p.driver, &shown, DEADLINE).expect("the Sign in button");
    let driver = p.driver.clone();
    for width in [360, 1280] {
        p.browser.set_viewport(&driver, width, 800).expect("viewport");
        p.browser.cdp.evaluate(&driver, &sel::centre_of(button)).expect("scroll to the card");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let name = format!("mcp-sign-in-sites-{}-{width}.png", scheme.name());
            p.browser.screenshot(&driver, scheme, &artifacts_dir().join(name)).expect("shot");
        }
    }
    p.browser.clear_viewport(&driver).expect("viewport");

    // A real click: Chrome's request runs inside its gesture.
    let at = p.browser.cdp.evaluate(&driver, &sel::centre_of(button)).expect("the button");
    let (x, y) = (at[0].as_f64().expect("x"), at[1].as_f64().expect("y"));
    for kind in ["mousePressed", "mouseReleased"] {
        p.browser
            .cdp
            .call_in(
                &driver.session_id,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )
            .expect("click");
    }
    let ready = wait_server(&mut p, "ready after the sign-in", |s| {
        s["status"]["state"] == "ready"
            || (s["status"]["state"] == "needs_authorization"
                && s["status"]["reason"].as_str().is_some_and(|r| r.contains("failed")))
            || s["status"]["state"] == "error"
    });
    assert_eq!(ready["status"]["state"], "ready", "{ready:#}");

    // Exactly the two origins were asked for and granted.
    assert!(may_reach(&mut p, &auth_origin) && may_reach(&mut p, &server_origin));
    let added: Vec<String> = p
        .granted_origins()
        .expect("getAll")
        .into_iter()
        .filter(|origin| !granted_before.contains(origin))
        .collect();
    let mut expected = vec![format!("{server_origin}/*"), format!("{auth_origin}/*")];
    let mut added_sorted = added.clone();
    added_sorted.sort();
    expected.sort();
    assert_eq!(added_sorted, expected, "{added:?}");
    let exchanges: Vec<Value> = mcp
        .token_requests()
        .into_iter()
        .filter(|form| form.iter().any(|(k, v)| k == "grant_type" && v == "authorization_code"))
        .map(|form| json!(form))
        .collect();
    assert_eq!(exchanges.len(), 1, "one code redeemed at the other site: {exchanges:?}");
}
