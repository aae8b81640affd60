//! Tests of the exposed tool-name mapping.

use super::*;

fn slug(s: &str) -> ServerSlug {
    ServerSlug::new(s).unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn slugs_follow_the_rule() {
    assert!(ServerSlug::new("github").is_ok());
    assert!(ServerSlug::new("my-server-2").is_ok());
    for bad in ["", "-x", "Git", "a_b", "a.b", "x".repeat(21).as_str()] {
        assert!(ServerSlug::new(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn plain_names_are_kept() {
    assert_eq!(exposed_tool_name(&slug("gh"), "create_issue"), "mcp__gh__create_issue");
    assert_eq!(split_tool_name("mcp__gh__create_issue"), Some(("gh", "create_issue")));
    // A tool's own double underscore stays in the tool part.
    assert_eq!(split_tool_name("mcp__gh__a__b"), Some(("gh", "a__b")));
    assert_eq!(split_tool_name("web_fetch"), None);
}

#[test]
fn unsafe_or_long_names_are_escaped_within_64_chars_and_stay_distinct() {
    let server = slug("server-with-long-id1");
    let dotted = exposed_tool_name(&server, "files.read");
    let spaced = exposed_tool_name(&server, "files read");
    let plain = exposed_tool_name(&server, "files_read");
    assert!(dotted.starts_with("mcp__server-with-long-id1__files_read_"), "{dotted}");
    assert_ne!(dotted, spaced);
    assert_ne!(dotted, plain);
    let long = "x".repeat(128);
    let long_other = format!("{}y", "x".repeat(127));
    let a = exposed_tool_name(&server, &long);
    let b = exposed_tool_name(&server, &long_other);
    for name in [&dotted, &spaced, &a, &b] {
        assert!(name.len() <= MAX_EXPOSED_LEN, "{name} is {} long", name.len());
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        assert_eq!(split_tool_name(name).map(|(s, _)| s), Some("server-with-long-id1"));
    }
    assert_ne!(a, b);
    // Stable across runs and builds: the name is stored in threads and rules.
    // FNV-1a's published test vector.
    assert_eq!(fnv1a(b"a"), 0xe40c_292c);
    // Non-ASCII letters are escaped too (one `_` per character, not per byte).
    let accented = exposed_tool_name(&slug("s"), "café");
    assert!(accented.starts_with("mcp__s__caf__"), "{accented}");
}
