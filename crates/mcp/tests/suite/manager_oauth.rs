//! Signing in through the manager against the mock's authorization server: only the user's
//! `connect` opens "the browser" (a double that follows the authorize endpoint's redirect over
//! HTTP, as `launchWebAuthFlow` would); calls, listings and startup connects end in
//! `needs_authorization` without it; a 403 `insufficient_scope` is stepped up on the next
//! `connect`.

use std::cell::Cell;
use std::cell::RefCell;
use std::io::Read;
use std::io::Write;
use std::net::TcpStream;
use std::rc::Rc;

use panelot_core::model::LocalFuture;
use panelot_mcp::bridge::ErrorKind;
use panelot_mcp::bridge::Event;
use panelot_mcp::bridge::ServerSpec;
use panelot_mcp::manager::Browser;
use panelot_mcp::manager::ManagerOptions;
use panelot_mcp::oauth::Credentials;
use panelot_mcp::oauth::Random;
use panelot_mcp::oauth::Scopes;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpStatus;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::manager::Harness;
use super::manager::error_kind;
use super::manager::harness_with;
use super::manager::local;
use super::manager::spec;
use super::manager::text_of;

/// Where the browser double says it catches the redirect.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// What the browser double saw: the authorization URLs it was asked to open.
#[derive(Default)]
struct Opened(RefCell<Vec<String>>);

impl Opened {
    fn count(&self) -> usize {
        self.0.borrow().len()
    }

    /// The value of `name` in the `n`th authorization URL.
    fn param(&self, n: usize, name: &str) -> Option<String> {
        let urls = self.0.borrow();
        let query = urls.get(n)?.split_once('?')?.1.to_owned();
        query.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            (key == name).then(|| percent_decode(value))
        })
    }
}

/// `%XX` and `+` decoded (the URL is ours, so its escapes are well formed).
fn percent_decode(text: &str) -> String {
    let mut bytes = Vec::new();
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        match byte {
            b'%' if tail.len() >= 2 => {
                let hex = std::str::from_utf8(&tail[..2]).unwrap();
                bytes.push(u8::from_str_radix(hex, 16).unwrap());
                rest = &tail[2..];
            }
            b'+' => {
                bytes.push(b' ');
                rest = tail;
            }
            _ => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    String::from_utf8(bytes).unwrap()
}

/// Plays the browser: `GET` the authorization URL and come back with its 302's `Location`.
struct FollowRedirect {
    opened: Rc<Opened>,
    random: Counter,
}

impl Browser for FollowRedirect {
    fn redirect_uri(&self) -> Result<String, String> {
        Ok(REDIRECT_URI.to_owned())
    }

    fn random(&self) -> &dyn Random {
        &self.random
    }

    fn authorize(&self, url: String) -> LocalFuture<'static, Result<String, String>> {
        self.opened.0.borrow_mut().push(url.clone());
        Box::pin(async move { follow(&url) })
    }
}

fn follow(url: &str) -> Result<String, String> {
    let rest = url.strip_prefix("http://").ok_or("the mock is plain HTTP on loopback")?;
    let (host, target) = rest.split_at(rest.find('/').ok_or("a path")?);
    let mut stream = TcpStream::connect(host).map_err(|err| err.to_string())?;
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        .map_err(|err| err.to_string())?;
    let mut response = String::new();
    stream.read_to_string(&mut response).map_err(|err| err.to_string())?;
    response
        .lines()
        .find_map(|line| line.strip_prefix("Location: "))
        .map(|location| location.trim().to_owned())
        .ok_or_else(|| format!("no redirect: {response}"))
}

/// Deterministic bytes; the flow's security does not rest on them in tests.
struct Counter(Cell<u8>);

impl Random for Counter {
    fn fill(&self, bytes: &mut [u8]) {
        for byte in bytes {
            *byte = self.0.get();
            self.0.set(self.0.get().wrapping_mul(31).wrapping_add(7));
        }
    }
}

fn oauth_harness(oauth: MockOAuth) -> (Harness, Rc<Opened>) {
    let opened = Rc::new(Opened::default());
    let browser = FollowRedirect { opened: Rc::clone(&opened), random: Counter(Cell::new(1)) };
    let config = MockMcpConfig { oauth: Some(oauth), ..MockMcpConfig::default() };
    (harness_with(config, ManagerOptions::default(), Box::new(browser)), opened)
}

fn oauth_spec(h: &Harness, connect: McpConnectMode) -> ServerSpec {
    ServerSpec { auth: McpAuth::Oauth, ..spec(h, connect) }
}

/// The credentials of every `credentials` event so far.
fn handed_over(h: &Harness) -> Vec<Credentials> {
    h.events
        .borrow()
        .iter()
        .filter_map(|event| match event {
            Event::Credentials { credentials, .. } => Some(credentials.clone()),
            _ => None,
        })
        .collect()
}

fn needs_authorization(status: &McpStatus) -> &str {
    match status {
        McpStatus::NeedsAuthorization { reason, .. } => reason,
        other => panic!("expected needs_authorization, got {other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn connect_signs_in_through_the_browser_and_background_work_never_does() {
    local(async {
        let (h, opened) = oauth_harness(MockOAuth::default());
        h.manager.configure(vec![oauth_spec(&h, McpConnectMode::Lazy)]);

        // A model's call on a server that needs a sign-in: refused as unauthorized, in words
        // that send the user to the settings, and no window.
        let reply = h.call("c0", "echo", json!({"text": "x"})).await;
        assert_eq!(error_kind(&reply), ErrorKind::Unauthorized);
        let status = h.manager.status("mock").unwrap();
        assert!(needs_authorization(&status).contains("Sign in"), "{status:?}");
        assert!(format!("{reply:?}").contains("settings"), "{reply:?}");
        let listed = h.manager.command_json(r#"{"type":"list"}"#).await;
        assert!(listed.contains("settings"), "{listed}");
        assert_eq!(opened.count(), 0, "background work opened a sign-in window");

        // The user's Sign in: discovery, registration, the browser, the code, the tools.
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        assert_eq!(opened.count(), 1);
        assert_eq!(opened.param(0, "scope").as_deref(), Some("mcp:tools"));
        assert_eq!(opened.param(0, "redirect_uri").as_deref(), Some(REDIRECT_URI));
        let credentials = handed_over(&h);
        assert_eq!(credentials.len(), 1, "the engine gets the sign-in to keep");
        assert_eq!(credentials[0].resource(), h.mock.url());
        assert_eq!(credentials[0].scopes(), &Scopes::parse("mcp:tools"));
        assert!(!format!("{:?}", h.events.borrow()).contains("access-"), "no token in Debug");
        assert_eq!(text_of(&h.call("c1", "echo", json!({"text": "in"})).await), "in");

        // The engine stores the sign-in and configures it back: kept, no new connection.
        let initializes = h.count("POST", Some("initialize"));
        let signed = ServerSpec {
            oauth_credentials: Some(serde_json::to_value(&credentials[0]).unwrap()),
            ..oauth_spec(&h, McpConnectMode::Lazy)
        };
        h.manager.configure(vec![signed]);
        assert_eq!(text_of(&h.call("c2", "echo", json!({"text": "kept"})).await), "kept");
        assert_eq!(h.count("POST", Some("initialize")), initializes);
        assert_eq!(opened.count(), 1);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_needing_a_wider_scope_is_stepped_up_on_the_next_connect() {
    local(async {
        let (h, opened) = oauth_harness(MockOAuth::default());
        h.manager.configure(vec![oauth_spec(&h, McpConnectMode::Lazy)]);
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        let client_id = opened.param(0, "client_id");

        // The admin tool needs mcp:admin: the call fails without a window and the status
        // says which permission to grant from the settings.
        let reply = h.call("c1", "admin", json!({})).await;
        assert_eq!(error_kind(&reply), ErrorKind::Unauthorized);
        // The call's own message (what the model reads) says how to grant it, as the status.
        let panelot_mcp::bridge::CallReply::Err { error, .. } = &reply else { unreachable!() };
        assert!(
            error.message.contains("mcp:admin") && error.message.contains("Sign in"),
            "{error:?}"
        );
        let status = h.manager.status("mock").unwrap();
        let reason = needs_authorization(&status);
        assert!(reason.contains("mcp:admin") && reason.contains("settings"), "{reason}");
        assert_eq!(opened.count(), 1);
        // Other tools still answer meanwhile.
        assert_eq!(text_of(&h.call("c2", "echo", json!({"text": "ok"})).await), "ok");

        // Sign in again: granted and asked scopes, the same client (no new registration).
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        assert_eq!(opened.count(), 2);
        assert_eq!(opened.param(1, "scope").as_deref(), Some("mcp:admin mcp:tools"));
        assert_eq!(opened.param(1, "client_id"), client_id);
        let credentials = handed_over(&h);
        assert_eq!(credentials.len(), 2);
        assert_eq!(credentials[1].scopes(), &Scopes::parse("mcp:admin mcp:tools"));
        let reply = h.call("c3", "admin", json!({})).await;
        assert!(matches!(reply, panelot_mcp::bridge::CallReply::Ok { .. }), "{reply:?}");

        // Nothing left to step up to: connect only lists again.
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        assert_eq!(opened.count(), 2);
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_startup_server_waits_for_the_user_and_a_refusal_says_to_try_again() {
    local(async {
        let (h, opened) = oauth_harness(MockOAuth { deny: true, ..MockOAuth::default() });
        h.manager.configure(vec![oauth_spec(&h, McpConnectMode::Startup)]);
        let status =
            h.wait_status(|status| matches!(status, McpStatus::NeedsAuthorization { .. })).await;
        assert!(needs_authorization(&status).contains("Sign in"), "{status:?}");
        assert_eq!(opened.count(), 0, "a startup connect opened a sign-in window");

        // The user presses Sign in and the authorization server says no.
        let status = h.manager.connect("mock").await;
        let reason = needs_authorization(&status);
        assert!(reason.contains("access_denied") && reason.contains("Sign in again"), "{reason}");
        assert_eq!(opened.count(), 1);
        assert!(handed_over(&h).is_empty());
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_sign_in_that_cannot_be_renewed_is_replaced_through_the_browser() {
    local(async {
        let (h, opened) =
            oauth_harness(MockOAuth { rotate_refresh_tokens: true, ..MockOAuth::default() });
        h.manager.configure(vec![oauth_spec(&h, McpConnectMode::Lazy)]);
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        let first = handed_over(&h).remove(0);

        // The engine hands back the first sign-in after its refresh token was rotated away
        // (say, restored from an older copy): the refresh is refused, a call cannot sign in.
        h.mock.expire_access_tokens();
        assert_eq!(text_of(&h.call("c1", "echo", json!({"text": "a"})).await), "a");
        let stale = ServerSpec {
            oauth_credentials: Some(serde_json::to_value(&first).unwrap()),
            ..oauth_spec(&h, McpConnectMode::Lazy)
        };
        h.manager.configure(vec![stale]);
        h.mock.expire_access_tokens();
        let reply = h.call("c2", "echo", json!({"text": "b"})).await;
        assert_eq!(error_kind(&reply), ErrorKind::Unauthorized);
        assert_eq!(opened.count(), 1);

        // Sign in: a new authorization replaces it.
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        assert_eq!(opened.count(), 2);
        assert_eq!(text_of(&h.call("c3", "echo", json!({"text": "c"})).await), "c");
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_sign_in_asked_for_names_the_origins_it_fetches_from() {
    local(async {
        // The authorization server goes by another name (another origin) on the same port.
        let oauth = MockOAuth { authorization_host: Some("localhost".into()), ..MockOAuth::default() };
        let (h, opened) = oauth_harness(oauth);
        h.manager.configure(vec![oauth_spec(&h, McpConnectMode::Startup)]);
        let server = h.mock.url().trim_end_matches("/mcp").to_owned();
        let port = server.rsplit_once(':').unwrap().1.to_owned();
        let authorization = format!("http://localhost:{port}");

        // Background work learns them from the metadata (no registration, no window): the
        // server's origin first, then the authorization server's.
        let status = h
            .wait_status(|status| {
                matches!(status, McpStatus::NeedsAuthorization { origins, .. } if !origins.is_empty())
            })
            .await;
        let McpStatus::NeedsAuthorization { origins, .. } = &status else { unreachable!() };
        assert_eq!(origins, &[server.clone(), authorization.clone()]);
        assert_eq!(opened.count(), 0);
        let registered = h.mock.requests().iter().any(|r| r.target.starts_with("/oauth/register"));
        assert!(!registered, "background work registered a client");

        // The user's Sign in goes through that authorization server.
        assert_eq!(h.manager.connect("mock").await, McpStatus::Ready { tools: 7 });
        assert!(opened.0.borrow()[0].starts_with(&format!("{authorization}/oauth/authorize?")));
        let credentials = handed_over(&h);
        assert_eq!(credentials[0].resource(), h.mock.url());
    })
    .await;
}
