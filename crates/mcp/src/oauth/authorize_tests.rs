//! The authorization URL and the redirect checks, without a server.

use pretty_assertions::assert_eq;

use super::*;
use crate::oauth::AuthorizationServerMetadata;
use crate::oauth::ProtectedResourceMetadata;

/// Bytes 0, 1, 2, ... so verifiers and states are known.
struct Counting(std::cell::Cell<u8>);

impl Random for Counting {
    fn fill(&self, bytes: &mut [u8]) {
        for byte in bytes {
            *byte = self.0.get();
            self.0.set(self.0.get().wrapping_add(1));
        }
    }
}

fn plan() -> AuthPlan {
    AuthPlan {
        resource: "https://mcp.example.com/mcp".to_owned(),
        resource_metadata: ProtectedResourceMetadata {
            resource: "https://mcp.example.com/mcp".to_owned(),
            authorization_servers: vec!["https://auth.example.com/t1".to_owned()],
            scopes_supported: vec!["read".to_owned()],
        },
        server_metadata: AuthorizationServerMetadata {
            issuer: "https://auth.example.com/t1".to_owned(),
            authorization_endpoint: "https://auth.example.com/t1/authorize?prompt=consent"
                .to_owned(),
            token_endpoint: "https://auth.example.com/t1/token".to_owned(),
            registration_endpoint: None,
            code_challenge_methods_supported: Some(vec!["S256".to_owned()]),
            scopes_supported: Vec::new(),
        },
        challenged_scope: Some("mcp:tools read".to_owned()),
    }
}

fn client() -> OAuthClient {
    OAuthClient::preregistered(&plan(), "client-1", "https://ext.chromiumapp.org/cb").unwrap()
}

fn start() -> (String, PendingAuthorization) {
    let plan = plan();
    PendingAuthorization::start(&plan, &client(), &Counting(0.into()), &plan.default_scopes())
        .unwrap()
}

#[test]
fn the_s256_challenge_matches_rfc_7636_appendix_b() {
    assert_eq!(
        code_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
}

#[test]
fn the_authorization_url_carries_every_parameter() {
    let (url, pending) = start();
    let (endpoint, query) = url.split_once('?').unwrap();
    assert_eq!(endpoint, "https://auth.example.com/t1/authorize");
    let pairs = uri::form_decode(query);
    let verifier = URL_SAFE_NO_PAD.encode((0..32).collect::<Vec<u8>>());
    let state = URL_SAFE_NO_PAD.encode((32..48).collect::<Vec<u8>>());
    let expected: Vec<(String, String)> = [
        ("prompt", "consent"),
        ("response_type", "code"),
        ("client_id", "client-1"),
        ("redirect_uri", "https://ext.chromiumapp.org/cb"),
        ("code_challenge", code_challenge(&verifier).as_str()),
        ("code_challenge_method", "S256"),
        ("state", state.as_str()),
        ("scope", "mcp:tools read"),
        ("resource", "https://mcp.example.com/mcp"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect();
    assert_eq!(pairs, expected);
    assert_eq!(pending.state(), state);
    assert_eq!(verifier.len(), 43);
}

#[test]
fn a_client_of_another_issuer_is_refused() {
    let plan = plan();
    let mut client = client();
    client.issuer = "https://evil.example.com".to_owned();
    let err = PendingAuthorization::start(&plan, &client, &Counting(0.into()), &Scopes::default())
        .unwrap_err();
    assert!(matches!(err, OAuthError::WrongBinding { .. }), "{err:?}");
}

#[test]
fn redirects_are_checked_before_their_code_is_used() {
    let (_, pending) = start();
    let state = pending.state().to_owned();
    let cb = "https://ext.chromiumapp.org/cb";
    assert_eq!(pending.code(&format!("{cb}?code=abc&state={state}")), Ok("abc".to_owned()));
    assert_eq!(
        pending
            .code(&format!("{cb}?code=abc&state={state}&iss=https%3A%2F%2Fauth.example.com%2Ft1")),
        Ok("abc".to_owned())
    );
    assert_eq!(pending.code(&format!("{cb}?code=abc&state=other")), Err(OAuthError::StateMismatch));
    assert_eq!(pending.code(&format!("{cb}?code=abc")), Err(OAuthError::StateMismatch));
    assert_eq!(
        pending
            .code(&format!("{cb}?error=access_denied&error_description=No+thanks&state={state}")),
        Err(OAuthError::Denied {
            error: "access_denied".to_owned(),
            description: Some("No thanks".to_owned())
        })
    );
    assert_eq!(pending.code(&format!("{cb}?state={state}")), Err(OAuthError::NoCode));
    assert_eq!(
        pending.code(&format!("https://evil.example/cb?code=abc&state={state}")),
        Err(OAuthError::RedirectMismatch)
    );
    assert!(matches!(
        pending.code(&format!("{cb}?code=abc&state={state}&iss=https%3A%2F%2Fevil.example")),
        Err(OAuthError::IssuerMismatch { .. })
    ));
}

#[test]
fn scopes_union_and_serialize_in_order() {
    let granted = Scopes::parse("b a");
    let asked = Scopes::parse(" c  a ");
    assert_eq!(granted.union(&asked).to_scope(), "a b c");
    assert!(granted.union(&asked).contains_all(&asked));
    assert!(!granted.contains_all(&asked));
    assert_eq!(serde_json::to_string(&granted).unwrap(), r#"["a","b"]"#);
}

#[test]
fn pending_authorizations_survive_serialization_and_hide_the_verifier() {
    let (_, pending) = start();
    let stored = serde_json::to_string(&pending).unwrap();
    let restored: PendingAuthorization = serde_json::from_str(&stored).unwrap();
    assert_eq!(restored, pending);
    assert!(!format!("{pending:?}").contains(&pending.verifier));
}
