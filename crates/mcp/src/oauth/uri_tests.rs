//! URL parsing, canonical resource URIs, well-known locations and form encoding.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn canonical(url: &str, expected: &str) {
    assert_eq!(Url::parse(url).unwrap().canonical_resource(), expected, "{url}");
}

#[test]
fn canonical_resource_uris_follow_the_mcp_rules() {
    canonical("https://mcp.example.com/mcp", "https://mcp.example.com/mcp");
    canonical("HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp");
    canonical("https://mcp.example.com", "https://mcp.example.com");
    canonical("https://mcp.example.com/", "https://mcp.example.com");
    canonical("https://mcp.example.com:443/mcp/", "https://mcp.example.com/mcp");
    canonical("https://mcp.example.com:8443", "https://mcp.example.com:8443");
    canonical("http://127.0.0.1:80/x", "http://127.0.0.1/x");
    canonical("https://mcp.example.com/server/mcp#frag", "https://mcp.example.com/server/mcp");
    canonical("https://[::1]:9000/mcp", "https://[::1]:9000/mcp");
    canonical("https://a.example/mcp?tenant=1", "https://a.example/mcp?tenant=1");
}

#[track_caller]
fn refused(url: &str) -> OAuthError {
    Url::parse_secure(url).expect_err(url)
}

#[test]
fn only_https_or_loopback_http_is_accepted() {
    for ok in [
        "https://example.com/a",
        "http://127.0.0.1:8080/mcp",
        "http://127.1.2.3/",
        "http://localhost:3000/cb",
        "http://[::1]:3000/cb",
    ] {
        assert!(Url::parse_secure(ok).is_ok(), "{ok}");
    }
    assert!(matches!(refused("http://example.com/mcp"), OAuthError::InsecureUrl { .. }));
    assert!(matches!(refused("http://127.0.0.1.evil.com/"), OAuthError::InsecureUrl { .. }));
    assert!(matches!(refused("http://10.0.0.1/"), OAuthError::InsecureUrl { .. }));
    for bad in [
        "example.com/mcp",
        "ftp://example.com/",
        "https://user:pw@example.com/",
        "https:///path",
        "https://exa mple.com/",
        "https://example.com:99999/",
        "https://[zz]/",
        "javascript://alert(1)",
    ] {
        assert!(matches!(refused(bad), OAuthError::InvalidUrl { .. }), "{bad}");
    }
}

#[test]
fn resource_metadata_locations_insert_the_path_then_try_the_root() {
    let server = Url::parse("https://example.com/public/mcp").unwrap();
    assert_eq!(
        protected_resource_metadata_urls(&server),
        [
            "https://example.com/.well-known/oauth-protected-resource/public/mcp",
            "https://example.com/.well-known/oauth-protected-resource",
        ]
    );
    let root = Url::parse("https://example.com/").unwrap();
    assert_eq!(
        protected_resource_metadata_urls(&root),
        ["https://example.com/.well-known/oauth-protected-resource"]
    );
}

#[test]
fn server_metadata_locations_follow_the_mcp_order() {
    let issuer = Url::parse("https://auth.example.com/tenant1").unwrap();
    assert_eq!(
        authorization_server_metadata_urls(&issuer),
        [
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/.well-known/openid-configuration",
        ]
    );
    let issuer = Url::parse("https://auth.example.com").unwrap();
    assert_eq!(
        authorization_server_metadata_urls(&issuer),
        [
            "https://auth.example.com/.well-known/oauth-authorization-server",
            "https://auth.example.com/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn forms_round_trip_through_encoding() {
    let encoded = form_encode(&[("redirect_uri", "https://x.test/cb?a=1&b"), ("scope", "a b+c")]);
    assert_eq!(encoded, "redirect_uri=https%3A%2F%2Fx.test%2Fcb%3Fa%3D1%26b&scope=a%20b%2Bc");
    assert_eq!(
        form_decode(&encoded),
        [
            ("redirect_uri".to_owned(), "https://x.test/cb?a=1&b".to_owned()),
            ("scope".to_owned(), "a b+c".to_owned()),
        ]
    );
    assert_eq!(
        form_decode("a=x+y&b=%E2%82%AC&c=%zz&d"),
        [
            ("a".to_owned(), "x y".to_owned()),
            ("b".to_owned(), "€".to_owned()),
            ("c".to_owned(), "%zz".to_owned()),
            ("d".to_owned(), String::new()),
        ]
    );
}
