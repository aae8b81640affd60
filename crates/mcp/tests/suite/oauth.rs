//! OAuth 2.1 against the mock's own authorization server over loopback: the whole flow from a
//! 401 to a step-up, then each check that must stop it.

use std::cell::Cell;
use std::io::Read;
use std::io::Write;
use std::net::TcpStream;

use panelot_core::env::AbortSignal;
use panelot_core::env::ManualClock;
use panelot_mcp::BearerChallenge;
use panelot_mcp::Budgets;
use panelot_mcp::McpError;
use panelot_mcp::oauth::AuthPlan;
use panelot_mcp::oauth::Credentials;
use panelot_mcp::oauth::OAuthClient;
use panelot_mcp::oauth::OAuthError;
use panelot_mcp::oauth::PendingAuthorization;
use panelot_mcp::oauth::Random;
use panelot_mcp::oauth::Scopes;
use panelot_mcp::oauth::Step;
use panelot_mcp::oauth::discover;
use panelot_providers::NativeHttp;
use panelot_testkit::mock_mcp::MetadataLocation;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_mcp::MockOAuth;
use panelot_testkit::mock_mcp::SpoiledMetadata;
use pretty_assertions::assert_eq;
use serde_json::Map;

use super::harness::Setup;
use super::harness::setup;

/// Where `launchWebAuthFlow` would catch the redirect; any loopback URL does for the mock.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

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

fn random() -> Counter {
    Counter(Cell::new(1))
}

fn oauth_mock(oauth: MockOAuth) -> Setup {
    setup(MockMcpConfig { oauth: Some(oauth), ..MockMcpConfig::default() })
}

/// Plays the browser: `GET url` without following, returning the `Location` of the 302.
fn browse(url: &str) -> String {
    let rest = url.strip_prefix("http://").expect("the mock is plain HTTP on loopback");
    let (host, target) = rest.split_at(rest.find('/').expect("a path"));
    let mut stream = TcpStream::connect(host).expect("connects to the mock");
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 302"), "not a redirect: {response}");
    response
        .lines()
        .find_map(|line| line.strip_prefix("Location: "))
        .expect("a Location header")
        .trim()
        .to_owned()
}

/// The 401 the first request gets, and its challenge.
async fn challenge(s: &Setup) -> BearerChallenge {
    match s.client.list_tools(&AbortSignal::default()).await {
        Err(McpError::Unauthorized { status: 401, challenge: Some(challenge) }) => challenge,
        other => panic!("expected a 401 with a challenge, got {other:?}"),
    }
}

async fn plan_of(s: &Setup, http: &NativeHttp) -> Result<AuthPlan, OAuthError> {
    let challenge = challenge(s).await;
    discover(http, &Budgets::default(), &s.mock.url(), Some(&challenge), &AbortSignal::default())
        .await
}

/// Registers, authorizes in "the browser" and redeems the code.
async fn authorize(
    http: &NativeHttp,
    clock: &ManualClock,
    plan: &AuthPlan,
) -> Result<Credentials, OAuthError> {
    let abort = AbortSignal::default();
    let budgets = Budgets::default();
    let client = OAuthClient::register(http, &budgets, plan, REDIRECT_URI, &abort).await?;
    let (url, pending) =
        PendingAuthorization::start(plan, &client, &random(), &plan.default_scopes())?;
    pending.finish(http, &budgets, clock, &browse(&url), &abort).await
}

fn http() -> NativeHttp {
    NativeHttp::new().expect("the native transport builds")
}

async fn call_admin(s: &Setup) -> Result<panelot_mcp::model::CallToolResult, McpError> {
    s.client.call_tool("admin", Map::new(), &AbortSignal::default()).await
}

#[tokio::test(flavor = "current_thread")]
async fn the_whole_flow_from_401_to_step_up() {
    let s = oauth_mock(MockOAuth::default());
    let http = http();
    let budgets = Budgets::default();
    let abort = AbortSignal::default();
    let clock = ManualClock::at(1_000_000);
    let url = s.mock.url();
    let base = url.trim_end_matches("/mcp").to_owned();

    let plan = plan_of(&s, &http).await.expect("discovery succeeds");
    assert_eq!(plan.resource, url);
    assert_eq!(plan.issuer(), format!("{base}/oauth"));
    assert_eq!(plan.default_scopes(), Scopes::parse("mcp:tools"));

    let mut credentials = authorize(&http, &clock, &plan).await.expect("authorized");
    assert_eq!(credentials.resource(), url);
    assert_eq!(credentials.scopes(), &Scopes::parse("mcp:tools"));
    assert_eq!(credentials.expires_at_ms(), Some(1_000_000 + 60_000));
    s.client.set_authorization(Some(credentials.authorization(&url, &clock).unwrap()));
    let catalog = s.client.list_tools(&abort).await.expect("tools/list with the token");
    assert!(catalog.tools.iter().any(|tool| tool.tool.name == "admin"));

    // The code exchange carried the verifier and the resource (the mock checked the PKCE
    // challenge; a wrong verifier is refused there).
    let exchange = &s.mock.token_requests()[0];
    let field = |form: &[(String, String)], name: &str| {
        form.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone())
    };
    assert_eq!(field(exchange, "grant_type").as_deref(), Some("authorization_code"));
    assert_eq!(field(exchange, "resource").as_deref(), Some(url.as_str()));
    assert!(field(exchange, "code_verifier").is_some_and(|verifier| verifier.len() == 43));

    // Expiry by the host's clock: the header is refused until refreshed.
    clock.advance(60_000);
    assert_eq!(credentials.authorization(&url, &clock), Err(OAuthError::Expired));
    credentials = credentials.refresh(&http, &budgets, &clock, &abort).await.expect("refreshed");
    s.client.set_authorization(Some(credentials.authorization(&url, &clock).unwrap()));
    s.client.list_tools(&abort).await.expect("works after the refresh");

    // The server expires the token early: a 401, one refresh, a retry. The mock sends no new
    // refresh token, so the first one is used again.
    s.mock.expire_access_tokens();
    let err = s.client.list_tools(&abort).await.unwrap_err();
    assert!(matches!(err, McpError::Unauthorized { status: 401, .. }), "{err:?}");
    credentials = credentials.refresh(&http, &budgets, &clock, &abort).await.expect("refreshed");
    s.client.set_authorization(Some(credentials.authorization(&url, &clock).unwrap()));
    s.client.list_tools(&abort).await.expect("works after the second refresh");
    let refreshes: Vec<_> = s
        .mock
        .token_requests()
        .iter()
        .filter(|form| field(form, "grant_type").as_deref() == Some("refresh_token"))
        .map(|form| (field(form, "refresh_token"), field(form, "resource")))
        .collect();
    assert_eq!(refreshes.len(), 2);
    assert_eq!(refreshes[0], refreshes[1], "the old refresh token is kept");
    assert_eq!(refreshes[0].1.as_deref(), Some(url.as_str()));

    // Step-up: the admin tool needs a scope the token lacks.
    let Err(McpError::Unauthorized { status: 403, challenge: Some(challenge) }) =
        call_admin(&s).await
    else {
        panic!("expected a 403 insufficient_scope");
    };
    assert_eq!(challenge.error.as_deref(), Some("insufficient_scope"));
    let (auth_url, pending) = credentials
        .step_up(&plan, &challenge, &random())
        .expect("same resource and issuer")
        .expect("new scopes to ask for");
    assert_eq!(pending.scopes(), &Scopes::parse("mcp:admin mcp:tools"));
    credentials =
        pending.finish(&http, &budgets, &clock, &browse(&auth_url), &abort).await.unwrap();
    assert_eq!(credentials.scopes(), &Scopes::parse("mcp:admin mcp:tools"));
    s.client.set_authorization(Some(credentials.authorization(&url, &clock).unwrap()));
    let result = call_admin(&s).await.expect("the admin tool answers after the step-up");
    assert!(!result.is_error);
    // Asking again for what is granted would loop; there is nothing to step up to.
    assert_eq!(credentials.step_up_scopes(&challenge), None);

    // Stored and restored, the credentials still work and still show no token in Debug.
    let stored = serde_json::to_string(&credentials).unwrap();
    let restored: Credentials = serde_json::from_str(&stored).unwrap();
    assert_eq!(restored, credentials);
    assert!(!format!("{restored:?}").contains("access-"));
}

#[tokio::test(flavor = "current_thread")]
async fn metadata_is_found_at_each_oidc_location_and_without_a_metadata_url() {
    for (metadata, challenge_metadata_url) in [
        (MetadataLocation::OidcInserted, true),
        (MetadataLocation::OidcAppended, true),
        (MetadataLocation::Rfc8414, false),
    ] {
        let s = oauth_mock(MockOAuth { metadata, challenge_metadata_url, ..MockOAuth::default() });
        let http = http();
        let plan = plan_of(&s, &http).await.expect("discovery succeeds");
        let credentials = authorize(&http, &ManualClock::at(0), &plan).await;
        assert!(credentials.is_ok(), "{metadata:?}: {credentials:?}");
        let asked: Vec<String> = s
            .mock
            .requests()
            .into_iter()
            .filter(|r| r.target.starts_with("/.well-known/") || r.target.contains("/.well-known/"))
            .map(|r| r.target)
            .collect();
        let prm = "/.well-known/oauth-protected-resource";
        let rfc8414 = "/.well-known/oauth-authorization-server/oauth".to_owned();
        let oidc_inserted = "/.well-known/openid-configuration/oauth".to_owned();
        let oidc_appended = "/oauth/.well-known/openid-configuration".to_owned();
        let expected = match metadata {
            MetadataLocation::Rfc8414 => vec![format!("{prm}/mcp"), rfc8414],
            MetadataLocation::OidcInserted => vec![format!("{prm}/mcp"), rfc8414, oidc_inserted],
            MetadataLocation::OidcAppended => {
                vec![format!("{prm}/mcp"), rfc8414, oidc_inserted, oidc_appended]
            }
        };
        assert_eq!(asked, expected, "{metadata:?}");
    }
}

#[track_caller]
fn assert_refused(outcome: Result<AuthPlan, OAuthError>, expected: impl Fn(&OAuthError) -> bool) {
    match outcome {
        Err(err) if expected(&err) => {}
        other => panic!("unexpected outcome {other:?}"),
    }
}

/// What an error must look like.
type Expected = fn(&OAuthError) -> bool;

#[tokio::test(flavor = "current_thread")]
async fn spoiled_metadata_is_refused() {
    let cases: [(SpoiledMetadata, Expected); 6] = [
        (SpoiledMetadata::IssuerMismatch, |e| matches!(e, OAuthError::IssuerMismatch { .. })),
        (SpoiledMetadata::NoS256, |e| *e == OAuthError::NoS256),
        (SpoiledMetadata::NoChallengeMethods, |e| *e == OAuthError::NoS256),
        (SpoiledMetadata::ResourceMismatch, |e| matches!(e, OAuthError::ResourceMismatch { .. })),
        (SpoiledMetadata::Garbage, |e| {
            matches!(e, OAuthError::Malformed { step: Step::ResourceMetadata, .. })
        }),
        (SpoiledMetadata::Oversized(100_000), |e| {
            *e == OAuthError::TooLarge { step: Step::ResourceMetadata, limit: 64 * 1024 }
        }),
    ];
    for (spoil, expected) in cases {
        let s = oauth_mock(MockOAuth { spoil: Some(spoil.clone()), ..MockOAuth::default() });
        let outcome = plan_of(&s, &http()).await;
        assert!(outcome.as_ref().is_err_and(expected), "{spoil:?}: {outcome:?}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_crossed_or_refused_redirect_gives_no_credentials() {
    let http = http();
    let budgets = Budgets::default();
    let abort = AbortSignal::default();
    let clock = ManualClock::at(0);

    let s = oauth_mock(MockOAuth::default());
    let plan = plan_of(&s, &http).await.unwrap();
    let client = OAuthClient::register(&http, &budgets, &plan, REDIRECT_URI, &abort).await.unwrap();
    let (url, pending) =
        PendingAuthorization::start(&plan, &client, &random(), &plan.default_scopes()).unwrap();
    let redirect = browse(&url).replace(&format!("state={}", pending.state()), "state=forged");
    let outcome = pending.finish(&http, &budgets, &clock, &redirect, &abort).await;
    assert_eq!(outcome.unwrap_err(), OAuthError::StateMismatch);
    assert!(s.mock.token_requests().is_empty(), "no code was redeemed");

    let s = oauth_mock(MockOAuth { deny: true, ..MockOAuth::default() });
    let plan = plan_of(&s, &http).await.unwrap();
    let err = authorize(&http, &clock, &plan).await.unwrap_err();
    assert_eq!(
        err,
        OAuthError::Denied {
            error: "access_denied".to_owned(),
            description: Some("The user said no".to_owned())
        }
    );
    assert!(err.needs_user());
}

#[tokio::test(flavor = "current_thread")]
async fn plain_http_off_loopback_is_refused_before_anything_is_sent() {
    let http = http();
    let budgets = Budgets::default();
    let abort = AbortSignal::default();
    let outcome = discover(&http, &budgets, "http://mcp.example.com/mcp", None, &abort).await;
    assert_refused(outcome, |e| matches!(e, OAuthError::InsecureUrl { .. }));

    // A challenge pointing at plain HTTP elsewhere is refused too.
    let s = oauth_mock(MockOAuth::default());
    let challenge = BearerChallenge {
        resource_metadata: Some("http://evil.example/.well-known/oauth-protected-resource".into()),
        ..BearerChallenge::default()
    };
    let outcome = discover(&http, &budgets, &s.mock.url(), Some(&challenge), &abort).await;
    assert_refused(outcome, |e| matches!(e, OAuthError::InsecureUrl { .. }));
    assert!(s.mock.requests().is_empty());

    let plan = plan_of(&s, &http).await.unwrap();
    let refused = OAuthClient::register(&http, &budgets, &plan, "http://example.com/cb", &abort);
    assert!(matches!(refused.await, Err(OAuthError::InsecureUrl { .. })));
}

#[tokio::test(flavor = "current_thread")]
async fn credentials_refuse_another_server_or_issuer() {
    let s = oauth_mock(MockOAuth::default());
    let http = http();
    let clock = ManualClock::at(0);
    let plan = plan_of(&s, &http).await.unwrap();
    let credentials = authorize(&http, &clock, &plan).await.unwrap();
    let url = s.mock.url();
    assert!(credentials.authorization(&url, &clock).is_ok());
    let elsewhere = url.replace("/mcp", "/other");
    assert!(matches!(
        credentials.authorization(&elsewhere, &clock),
        Err(OAuthError::WrongBinding { .. })
    ));
    assert!(matches!(
        credentials.authorization("https://evil.example/mcp", &clock),
        Err(OAuthError::WrongBinding { .. })
    ));
    let mut other_issuer = plan.clone();
    other_issuer.server_metadata.issuer = "https://evil.example".to_owned();
    let challenge = BearerChallenge {
        error: Some("insufficient_scope".to_owned()),
        scope: Some("mcp:admin".to_owned()),
        ..BearerChallenge::default()
    };
    assert!(matches!(
        credentials.step_up(&other_issuer, &challenge, &random()),
        Err(OAuthError::WrongBinding { .. })
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn a_rotated_refresh_token_is_used_once_and_then_needs_the_user() {
    let s = oauth_mock(MockOAuth { rotate_refresh_tokens: true, ..MockOAuth::default() });
    let http = http();
    let budgets = Budgets::default();
    let abort = AbortSignal::default();
    let clock = ManualClock::at(0);
    let plan = plan_of(&s, &http).await.unwrap();
    let first = authorize(&http, &clock, &plan).await.unwrap();
    let second = first.refresh(&http, &budgets, &clock, &abort).await.expect("refreshed");
    second.refresh(&http, &budgets, &clock, &abort).await.expect("the new refresh token works");
    let err = first.refresh(&http, &budgets, &clock, &abort).await.unwrap_err();
    assert!(matches!(&err, OAuthError::TokenRefused { error, .. } if error == "invalid_grant"));
    assert!(err.needs_user());
}
