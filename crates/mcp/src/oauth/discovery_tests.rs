//! Which metadata `resource` covers which MCP server.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn check(resource: &str, server: &str, expected: Option<&str>) {
    let server = Url::parse(server).unwrap();
    let outcome = covering_resource(resource, &server);
    match expected {
        Some(expected) => assert_eq!(outcome, Ok(expected.to_owned()), "{resource}"),
        None => assert!(
            matches!(outcome, Err(OAuthError::ResourceMismatch { .. })),
            "{resource}: {outcome:?}"
        ),
    }
}

#[test]
fn a_resource_covers_its_server_and_the_paths_below_it() {
    let server = "https://mcp.example.com/api/mcp";
    check("https://mcp.example.com/api/mcp", server, Some("https://mcp.example.com/api/mcp"));
    check("https://MCP.example.com:443/api/mcp/", server, Some("https://mcp.example.com/api/mcp"));
    check("https://mcp.example.com/api", server, Some("https://mcp.example.com/api"));
    check("https://mcp.example.com/", server, Some("https://mcp.example.com"));
    check("https://mcp.example.com/ap", server, None);
    check("https://mcp.example.com/api/mcp/more", server, None);
    check("https://other.example.com/api/mcp", server, None);
    check("http://mcp.example.com/api/mcp", server, None);
    check("https://mcp.example.com:8443/api/mcp", server, None);
    check("https://mcp.example.com/api/mcp#x", server, None);
    check("not a url", server, None);
}
