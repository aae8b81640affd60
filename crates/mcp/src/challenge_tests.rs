//! Tests of the `WWW-Authenticate` Bearer challenge parser.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn reads_the_mcp_challenge() {
    let header = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write""#;
    assert_eq!(
        parse_bearer_challenge(header),
        Some(BearerChallenge {
            resource_metadata: Some(
                "https://mcp.example.com/.well-known/oauth-protected-resource".to_owned()
            ),
            scope: Some("files:read files:write".to_owned()),
            ..BearerChallenge::default()
        })
    );
}

#[test]
fn finds_bearer_among_other_schemes_and_reads_escapes_and_tokens() {
    let header = r#"Negotiate abc==, Basic realm="x, y", bearer error=insufficient_scope, error_description="need \"admin\"", realm=api, Digest nonce="n""#;
    let challenge = parse_bearer_challenge(header);
    assert_eq!(
        challenge,
        Some(BearerChallenge {
            error: Some("insufficient_scope".to_owned()),
            error_description: Some(r#"need "admin""#.to_owned()),
            realm: Some("api".to_owned()),
            ..BearerChallenge::default()
        })
    );
}

#[test]
fn no_bearer_or_garbage_is_none() {
    assert_eq!(parse_bearer_challenge(r#"Basic realm="x""#), None);
    assert_eq!(parse_bearer_challenge(""), None);
    assert_eq!(parse_bearer_challenge("\"\"\"=,,,"), None);
    // A bare Bearer still says "use OAuth", with nothing more.
    assert_eq!(parse_bearer_challenge("Bearer"), Some(BearerChallenge::default()));
    // An unterminated quote keeps what was read before it.
    assert_eq!(
        parse_bearer_challenge(r#"Bearer scope="a", resource_metadata="https://x"#),
        Some(BearerChallenge { scope: Some("a".to_owned()), ..BearerChallenge::default() })
    );
}
