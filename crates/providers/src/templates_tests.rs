//! Tests of the template table.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;

use super::KeyRequirement;
use super::TEMPLATES;
use super::template;
use crate::quirks::QuirkFlag;

#[test]
fn ids_are_unique_and_remote_urls_are_https() {
    let ids: BTreeSet<&str> = TEMPLATES.iter().map(|t| t.id).collect();
    assert_eq!(ids.len(), TEMPLATES.len());
    for t in TEMPLATES {
        assert!(!t.base_url.ends_with('/'), "{}", t.id);
        let local = t.base_url.starts_with("http://localhost:");
        assert!(t.base_url.is_empty() || t.base_url.starts_with("https://") || local, "{}", t.id);
        // Only local servers go without a key.
        assert_eq!(local || t.id == "custom", t.key == KeyRequirement::Optional, "{}", t.id);
    }
}

/// Local servers need no setting for their tool calls (the adapter accepts "stop"); the
/// templates carry only what still differs.
#[test]
fn templates_carry_the_quirks_that_still_differ() {
    assert_eq!(
        template("ollama").map(|t| t.quirks.flags()),
        Some(vec![QuirkFlag::NoStreamOptions])
    );
    for id in ["lmstudio", "llamacpp", "vllm", "openrouter", "custom"] {
        assert_eq!(template(id).map(|t| t.quirks.flags()), Some(Vec::new()), "{id}");
    }
    assert!(template("deepseek").is_some_and(|t| t.quirks.think_tag_reasoning));
    assert!(template("openai").is_some_and(|t| t.quirks.has(QuirkFlag::MaxCompletionTokens)));
    assert_eq!(template("nope"), None);
}
