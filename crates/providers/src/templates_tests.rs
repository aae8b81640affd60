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

#[test]
fn local_servers_honour_tool_calls_finished_with_stop() {
    for id in ["ollama", "lmstudio", "llamacpp"] {
        assert!(template(id).is_some_and(|t| t.quirks.has(QuirkFlag::ToolCallsOnStop)), "{id}");
    }
    for id in ["openai", "openrouter", "vllm", "custom"] {
        assert!(template(id).is_some_and(|t| !t.quirks.has(QuirkFlag::ToolCallsOnStop)), "{id}");
    }
    assert!(template("ollama").is_some_and(|t| t.quirks.no_stream_options));
    assert!(template("deepseek").is_some_and(|t| t.quirks.think_tag_reasoning));
    assert_eq!(template("nope"), None);
}
