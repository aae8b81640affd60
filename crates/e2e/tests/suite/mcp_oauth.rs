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
//!
//! A step-up: signed in by the Sign in click, a model's call of a tool that needs a scope the
//! sign-in did not ask for fails with the server's 403 `insufficient_scope`; the model reads
//! why, the user gets a browser notification and the settings ask for a sign-in; the next
//! Sign in click asks the authorization server for that scope too, and the call then runs.

use std::sync::Arc;
use std::sync::Mutex;

use panelot_e2e::side_panel::Card;
use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::sel;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

use super::mcp_calls::save;
use super::mcp_calls::wait_server;

/// A mock MCP server that is its own OAuth authorization server, saved as "Signed" (connect at
/// startup) from a new side panel, as the options page saves it.
fn saved_oauth_server() -> (MockMcp, Panel) {
    let mcp = MockMcp::start(MockMcpConfig {
        oauth: Some(MockOAuth::default()),
        ..MockMcpConfig::default()
    })
    .expect("start the MCP server");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let server = json!({"id": null, "name": "Signed", "url": mcp.url(), "auth": "oauth",
        "enabled": true, "connect": "startup", "disabledTools": []});
    save(&mut p, server);
    (mcp, p)
}

#[test]
fn connect_signs_in_to_an_oauth_server_through_launch_web_auth_flow() {
    let (mcp, mut p) = saved_oauth_server();

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

/// Clicks the options page's (the driver's) `selector` with the mouse, as a user does.
fn click(p: &mut Panel, selector: &str) {
    let driver = p.driver.clone();
    let at = p.browser.cdp.evaluate(&driver, &sel::centre_of(selector)).expect("the button");
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
    click(&mut p, button);
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

/// The `scope` of each authorization request the authorization server got, in order.
fn authorize_scopes(mcp: &MockMcp) -> Vec<String> {
    let decode = |text: &str| {
        let bytes = text.replace('+', " ").into_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3).unwrap_or_default())
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok());
            match (bytes[i], hex) {
                (b'%', Some(byte)) => {
                    out.push(byte);
                    i += 3;
                }
                (byte, _) => {
                    out.push(byte);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    mcp.requests()
        .into_iter()
        .filter(|r| r.http_method == "GET" && r.target.starts_with("/oauth/authorize?"))
        .map(|r| {
            let query = r.target.split_once('?').map_or("", |(_, query)| query).to_owned();
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix("scope="))
                .map(decode)
                .unwrap_or_default()
        })
        .collect()
}

/// How many times the server was asked to run its `admin` tool.
fn admin_calls(mcp: &MockMcp) -> usize {
    mcp.requests()
        .into_iter()
        .filter(|r| r.rpc_method() == Some("tools/call"))
        .filter(|r| r.body.as_ref().is_some_and(|b| b["params"]["name"] == "admin"))
        .count()
}

/// Presses the server's Sign in in the options page and waits until the sign-in ended.
fn sign_in(p: &mut Panel) -> Value {
    let button = ".mcp-server[data-server=signed] button.connect-mcp";
    let shown = format!("document.querySelector({button:?})?.textContent.includes('Sign in')");
    let driver = p.driver.clone();
    p.browser.cdp.wait_until(&driver, &shown, DEADLINE).expect("the Sign in button");
    click(p, button);
    wait_server(p, "the end of the sign-in", |s| {
        s["status"]["state"] == "ready"
            || (s["status"]["state"] == "needs_authorization"
                && s["status"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("did not finish") || r.contains("failed")))
            || s["status"]["state"] == "error"
    })
}

#[test]
fn a_call_refused_for_a_missing_scope_asks_for_a_sign_in_that_grants_it() {
    let (mcp, mut p) = saved_oauth_server();
    wait_server(&mut p, "needs_authorization", |s| s["status"]["state"] == "needs_authorization");

    // The first sign-in asks for what the server's challenge named, not for admin.
    let ready = sign_in(&mut p);
    assert_eq!(ready["status"]["state"], "ready", "{ready:#}");
    assert!(ready["tools"].as_array().unwrap().iter().any(|t| t["name"] == "admin"), "{ready:#}");
    let scopes = authorize_scopes(&mcp);
    assert_eq!(scopes.len(), 1, "{scopes:?}");
    assert!(!scopes[0].contains("mcp:admin"), "{scopes:?}");

    // The model calls admin: the server refuses it (403 insufficient_scope).
    let seen = Arc::new(Mutex::new(None));
    let seen_by_model = Arc::clone(&seen);
    p.model.reply(Reply::tool_call("mcp__signed__admin", json!({})));
    p.model.push(move |t| {
        *seen_by_model.lock().unwrap() = t.last_result();
        Reply::text("You need to sign in again.")
    });
    let mut allow = |_: &mut Panel, card: &Card| {
        assert_eq!(card.tool, "mcp__signed__admin", "{card:#?}");
        Ok(Decision::Allow)
    };
    p.run_turn("Do the admin thing", &mut allow).expect("the refused turn");
    assert_eq!(admin_calls(&mcp), 1, "the call reached the server");
    let seen = seen.lock().unwrap().clone().unwrap_or_default();
    assert!(
        seen.contains("403") && seen.contains("mcp:admin") && seen.contains("Sign in"),
        "the model reads why, and what the user can do: {seen}"
    );
    assert!(!seen.contains("admin done"), "{seen}");

    // The settings say a sign-in is needed, for that permission.
    let waiting = wait_server(&mut p, "needs_authorization after the 403", |s| {
        s["status"]["state"] == "needs_authorization"
    });
    let reason = waiting["status"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("mcp:admin") && reason.contains("Sign in"), "{waiting:#}");
    assert_ne!(waiting["recentCalls"][0]["outcome"], "ok", "{waiting:#}");

    // The user is told outside the panel too: a browser notification about the thread.
    let thread = p.current_thread().expect("threads").expect("the thread");
    let id = format!("panelot-thread:{}", thread["meta"]["id"].as_str().expect("its id"));
    let shown =
        format!("chrome.notifications.getAll().then((all) => Object.keys(all).includes({id:?}))");
    let driver = p.driver.clone();
    p.browser.cdp.wait_until(&driver, &shown, DEADLINE).expect("a notification to sign in");

    // Sign in again: the authorization request asks for admin too, and a new code is redeemed.
    let ready = sign_in(&mut p);
    assert_eq!(ready["status"]["state"], "ready", "{ready:#}");
    let scopes = authorize_scopes(&mcp);
    assert_eq!(scopes.len(), 2, "{scopes:?}");
    let asked: Vec<&str> = scopes[1].split(' ').collect();
    assert!(asked.contains(&"mcp:admin") && asked.contains(&"mcp:tools"), "{scopes:?}");
    let exchanges = mcp
        .token_requests()
        .into_iter()
        .filter(|form| form.iter().any(|(k, v)| k == "grant_type" && v == "authorization_code"))
        .count();
    assert_eq!(exchanges, 2, "one code redeemed per sign-in");

    // The model calls admin again: it runs, and its result is fenced as MCP content.
    p.model.reply(Reply::tool_call("mcp__signed__admin", json!({})));
    p.model.push(|t| {
        let seen = t.last_result().unwrap_or_default();
        let fenced = seen.contains("admin done") && seen.contains("provenance=\"mcp\"");
        Reply::text(if fenced { "Admin done, fenced." } else { "[not run or not fenced]" })
    });
    p.run_turn("Try again", &mut allow).expect("the turn after the step-up");
    assert_eq!(admin_calls(&mcp), 2);
    let text = p.panel_text();
    assert!(text.contains("Admin done, fenced."), "{text}");
    let recent =
        wait_server(&mut p, "the call that ran", |s| s["recentCalls"][0]["outcome"] == "ok");
    assert_eq!(recent["recentCalls"][0]["tool"], "admin", "{recent:#}");
}
