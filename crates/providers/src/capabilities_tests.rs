//! Tests of the capability table, overrides and cost.

use panelot_core::model::ContentPart;
use panelot_core::model::GenParams;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::ReasoningEffort;
use panelot_core::model::ToolSpec;
use panelot_protocol::engine::Usage;
use pretty_assertions::assert_eq;

use super::Capabilities;
use super::ModelEntry;
use super::Pricing;
use super::UNKNOWN_MODEL;
use super::builtin_capabilities;
use super::capabilities;
use super::cost_usd;
use super::pricing;

#[track_caller]
fn check(model: &str, vision: bool, reasoning: bool, max_context: Option<u32>) {
    let caps = builtin_capabilities(model);
    assert_eq!((caps.vision, caps.reasoning, caps.max_context), (vision, reasoning, max_context));
}

#[test]
fn the_table_matches_families_by_their_longest_prefix() {
    check("claude-sonnet-4-5", true, true, Some(200_000));
    check("anthropic/claude-opus-4", true, true, Some(200_000));
    check("gpt-4o-mini", true, false, Some(128_000));
    check("gpt-4.1-nano", true, false, Some(1_047_576));
    check("GPT-5-mini", true, true, Some(400_000));
    check("o4-mini", true, true, Some(200_000));
    check("deepseek-reasoner", false, true, Some(128_000));
    check("deepseek-chat", false, false, Some(128_000));
    check("qwen3-coder", false, false, Some(131_072));
    assert_eq!(builtin_capabilities("mystery-7b"), UNKNOWN_MODEL);
    assert_eq!(builtin_capabilities("mystery-7b").tool_use, true);
}

#[test]
fn a_manual_entry_overrides_only_the_fields_it_sets() {
    let entries = vec![ModelEntry {
        id: "llama3.2-vision".to_owned(),
        vision: Some(true),
        max_context: Some(8_192),
        ..ModelEntry::default()
    }];
    assert_eq!(
        capabilities("llama3.2-vision", &entries),
        Capabilities { tool_use: true, vision: true, reasoning: false, max_context: Some(8_192) }
    );
    assert_eq!(capabilities("llama3.2", &entries), builtin_capabilities("llama3.2"));
}

#[test]
fn model_entries_parse_from_the_settings_json() {
    let entries: Vec<ModelEntry> = serde_json::from_str(
        r#"[{"id":"m","toolUse":false,"pricing":{"input":3,"output":15,"cacheRead":0.3}}]"#,
    )
    .unwrap();
    assert!(!capabilities("m", &entries).tool_use);
    assert_eq!(
        pricing("m", &entries),
        Some(Pricing { input: 3.0, output: 15.0, cache_read: Some(0.3), cache_write: None })
    );
    assert!(serde_json::from_str::<Vec<ModelEntry>>(r#"[{"id":"m","colour":1}]"#).is_err());
}

const PRICE: Pricing =
    Pricing { input: 3.0, output: 15.0, cache_read: Some(0.3), cache_write: Some(3.75) };

#[test]
fn openai_style_cached_tokens_are_part_of_the_input_and_billed_once() {
    // prompt_tokens 1,000 of which 800 cached: the adapter reports input 1,000, cache_read 800.
    let usage = Usage { input: 1_000, output: 100, cache_read: Some(800), cache_write: None };
    let expected = (200.0 * 3.0 + 800.0 * 0.3 + 100.0 * 15.0) / 1e6;
    assert!((cost_usd(&usage, &PRICE) - expected).abs() < 1e-12);
}

#[test]
fn anthropic_style_cache_reads_and_writes_are_billed_at_their_own_prices() {
    // input_tokens 50, cache_read_input_tokens 800, cache_creation_input_tokens 150: the
    // adapter's total input is 1,000.
    let usage = Usage { input: 1_000, output: 100, cache_read: Some(800), cache_write: Some(150) };
    let expected = (50.0 * 3.0 + 800.0 * 0.3 + 150.0 * 3.75 + 100.0 * 15.0) / 1e6;
    assert!((cost_usd(&usage, &PRICE) - expected).abs() < 1e-12);
}

#[test]
fn inconsistent_counts_never_bill_a_negative_uncached_part() {
    let usage = Usage { input: 10, output: 0, cache_read: Some(800), cache_write: None };
    assert!((cost_usd(&usage, &PRICE) - 800.0 * 0.3 / 1e6).abs() < 1e-12);
    let no_cache_price = Pricing { input: 1.0, output: 2.0, cache_read: None, cache_write: None };
    let usage = Usage { input: 1_000, output: 0, cache_read: Some(800), cache_write: None };
    assert!((cost_usd(&usage, &no_cache_price) - 1_000.0 / 1e6).abs() < 1e-12);
}

#[test]
fn restrict_drops_tools_and_reasoning_the_model_lacks() {
    let tool = ToolSpec {
        name: "t".to_owned(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
    };
    let request = ModelRequest {
        tools: vec![tool],
        params: GenParams { reasoning_effort: Some(ReasoningEffort::High), ..GenParams::default() },
        ..ModelRequest::default()
    };
    let mut plain = request.clone();
    Capabilities { tool_use: false, vision: false, reasoning: false, max_context: None }
        .restrict(&mut plain);
    assert_eq!((plain.tools.len(), plain.params.reasoning_effort), (0, None));
    let mut full = request.clone();
    builtin_capabilities("claude-sonnet-4-5").restrict(&mut full);
    assert_eq!(full, request);
}

#[test]
fn a_model_without_vision_is_not_offered_screenshots_and_gets_a_note_for_each_image() {
    let spec = |name: &str| ToolSpec {
        name: name.to_owned(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
    };
    let image = ContentPart::Image { mime: "image/png".into(), data_base64: "AAAA".into() };
    let request = ModelRequest {
        tools: vec![spec("read_page"), spec("screenshot")],
        messages: vec![Message::ToolResult {
            call_id: "c".into(),
            content: vec![ContentPart::Text("took it".into()), image],
            is_error: false,
        }],
        ..ModelRequest::default()
    };
    let seeing = Capabilities { tool_use: true, vision: true, reasoning: false, max_context: None };
    assert!(seeing.fit(&request).is_none(), "a vision model gets it all");
    let blind = Capabilities { vision: false, ..seeing };
    let (fitted, withheld) = blind.fit(&request).expect("something is withheld");
    let names: Vec<&str> = fitted.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["read_page"]);
    assert_eq!((withheld.tools, withheld.images, withheld.screenshot), (false, 1, true));
    let Message::ToolResult { content, .. } = &fitted.messages[0] else { panic!() };
    assert!(matches!(&content[1], ContentPart::Text(t) if t.contains("does not read images")));
    // Only the screenshot tool goes: a request without it and without images is untouched.
    let plain = ModelRequest { tools: vec![spec("read_page")], ..ModelRequest::default() };
    assert!(blind.fit(&plain).is_none());
}
