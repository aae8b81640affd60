//! What a model can do (tool use, vision, reasoning, context window) and what it costs.
//!
//! A built-in prefix table covers the common model families; a connection's manual
//! [`ModelEntry`]s override it field by field. Prices are only ever manual: published prices
//! change too often for a table compiled into the extension.
//!
//! **Cost formula** (per call, in US dollars, prices per million tokens). [`Usage::input`] is
//! the total of input tokens, cache reads and writes included (both adapters fill it so:
//! OpenAI's `prompt_tokens` already contains its `cached_tokens`; Anthropic's `input_tokens`
//! excludes cache reads and writes, so the adapter adds them). Then
//!
//! ```text
//! uncached = input − cache_read − cache_write        (never below zero)
//! cost     = ( uncached    × price.input
//!            + cache_read  × price.cache_read  (else price.input)
//!            + cache_write × price.cache_write (else price.input)
//!            + output      × price.output ) / 1,000,000
//! ```
//!
//! Every input token is billed exactly once, at the price of the way it was served.

use panelot_core::model::ContentPart;
use panelot_core::model::Message;
use panelot_core::model::ModelRequest;
use panelot_core::model::Withheld;
use panelot_core::tools::catalog::SCREENSHOT;
use panelot_protocol::engine::Usage;
use serde::Deserialize;
use serde::Serialize;

/// What a model supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Whether tools may be offered (`false`: the request carries none).
    pub tool_use: bool,
    /// Whether images may be sent.
    pub vision: bool,
    /// Whether a reasoning effort may be sent.
    pub reasoning: bool,
    /// Context window in tokens, when known.
    pub max_context: Option<u32>,
}

impl Capabilities {
    /// Removes from `request` what the model does not support: the tools without tool use, the
    /// reasoning effort without reasoning. Images are left to the engine, which must reject
    /// them before the call (dropping them silently would change the conversation).
    pub fn restrict(&self, request: &mut ModelRequest) {
        if !self.tool_use {
            request.tools.clear();
        }
        if !self.reasoning {
            request.params.reasoning_effort = None;
        }
    }
}

/// Note left to the model in place of an image it cannot read, so it knows one was there.
const IMAGE_WITHHELD_NOTE: &str =
    "[An image was attached here; this model does not read images, so it was not sent.]";

impl Capabilities {
    /// `request` without what the model cannot take: no tools without tool use, each image
    /// replaced by [`IMAGE_WITHHELD_NOTE`] without vision; `None` when it can take it all (the
    /// request is only copied when something must go). The reasoning effort is left alone:
    /// unknown models are assumed not to reason, and dropping an effort the user chose for a
    /// model the table does not know would be a silent change.
    pub fn fit(&self, request: &ModelRequest) -> Option<(ModelRequest, Withheld)> {
        let tools = !self.tool_use && !request.tools.is_empty();
        // A model that cannot see is not offered the tool that only shows it pictures.
        let blind = !self.vision && request.tools.iter().any(|t| t.name == SCREENSHOT);
        let images = match self.vision {
            true => 0,
            false => request.messages.iter().flat_map(parts).filter(|p| is_image(p)).count(),
        };
        if !tools && !blind && images == 0 {
            return None;
        }
        let mut fitted = request.clone();
        if tools {
            fitted.tools.clear();
        }
        if blind {
            fitted.tools.retain(|t| t.name != SCREENSHOT);
        }
        if images > 0 {
            for message in &mut fitted.messages {
                let content = match message {
                    Message::User { content } | Message::ToolResult { content, .. } => content,
                    Message::Assistant(_) => continue,
                };
                for part in content.iter_mut().filter(|p| is_image(p)) {
                    *part = ContentPart::Text(IMAGE_WITHHELD_NOTE.to_owned());
                }
            }
        }
        let images = u32::try_from(images).unwrap_or(u32::MAX);
        Some((fitted, Withheld { tools, images, screenshot: blind }))
    }
}

fn parts(message: &Message) -> &[ContentPart] {
    match message {
        Message::User { content } | Message::ToolResult { content, .. } => content,
        Message::Assistant(_) => &[],
    }
}

fn is_image(part: &ContentPart) -> bool {
    matches!(part, ContentPart::Image { .. })
}

/// A manual model entry of a connection (the settings' model JSON): every field but the id
/// is optional and overrides the built-in table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelEntry {
    /// Model id at the connection.
    pub id: String,
    /// Tool use.
    #[serde(default)]
    pub tool_use: Option<bool>,
    /// Vision.
    #[serde(default)]
    pub vision: Option<bool>,
    /// Reasoning.
    #[serde(default)]
    pub reasoning: Option<bool>,
    /// Context window in tokens.
    #[serde(default)]
    pub max_context: Option<u32>,
    /// Prices.
    #[serde(default)]
    pub pricing: Option<Pricing>,
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pricing {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Input read from the cache; the input price when unset.
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Input written to the cache; the input price when unset.
    #[serde(default)]
    pub cache_write: Option<f64>,
}

/// Unknown models: tools on (the agent is useless without them, and a refusal is reported),
/// nothing else assumed.
pub const UNKNOWN_MODEL: Capabilities =
    Capabilities { tool_use: true, vision: false, reasoning: false, max_context: None };

const fn caps(vision: bool, reasoning: bool, max_context: u32) -> Capabilities {
    Capabilities { tool_use: true, vision, reasoning, max_context: Some(max_context) }
}

/// Model-id prefixes and what they support; the longest matching prefix wins.
const TABLE: [(&str, Capabilities); 13] = [
    ("claude-", caps(true, true, 200_000)),
    ("gpt-5", caps(true, true, 400_000)),
    ("gpt-4.1", caps(true, false, 1_047_576)),
    ("gpt-4o", caps(true, false, 128_000)),
    ("o1", caps(true, true, 200_000)),
    ("o3", caps(true, true, 200_000)),
    ("o4", caps(true, true, 200_000)),
    ("deepseek-chat", caps(false, false, 128_000)),
    ("deepseek-reasoner", caps(false, true, 128_000)),
    ("kimi-", caps(false, false, 131_072)),
    ("glm-", caps(false, true, 128_000)),
    ("qwen", caps(false, false, 131_072)),
    ("llama", caps(false, false, 131_072)),
];

/// The capabilities of `model_id`: the manual entry's fields over the built-in table.
pub fn capabilities(model_id: &str, entries: &[ModelEntry]) -> Capabilities {
    let base = builtin_capabilities(model_id);
    let Some(entry) = entries.iter().find(|entry| entry.id == model_id) else {
        return base;
    };
    Capabilities {
        tool_use: entry.tool_use.unwrap_or(base.tool_use),
        vision: entry.vision.unwrap_or(base.vision),
        reasoning: entry.reasoning.unwrap_or(base.reasoning),
        max_context: entry.max_context.or(base.max_context),
    }
}

/// The built-in capabilities of `model_id`. A vendor prefix (`anthropic/claude-…` on
/// OpenRouter) and letter case are ignored.
pub fn builtin_capabilities(model_id: &str) -> Capabilities {
    let name = model_id.rsplit('/').next().unwrap_or(model_id).to_ascii_lowercase();
    TABLE
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or(UNKNOWN_MODEL, |(_, caps)| *caps)
}

/// The manual price of `model_id`, if its entry has one.
pub fn pricing(model_id: &str, entries: &[ModelEntry]) -> Option<Pricing> {
    entries.iter().find(|entry| entry.id == model_id).and_then(|entry| entry.pricing)
}

/// The cost of one call in US dollars (see the module docs for the formula).
pub fn cost_usd(usage: &Usage, pricing: &Pricing) -> f64 {
    let cache_read = usage.cache_read.unwrap_or(0);
    let cache_write = usage.cache_write.unwrap_or(0);
    let uncached = usage.input.saturating_sub(cache_read.saturating_add(cache_write));
    let tokens = |n: u64| n as f64;
    let micro = tokens(uncached) * pricing.input
        + tokens(cache_read) * pricing.cache_read.unwrap_or(pricing.input)
        + tokens(cache_write) * pricing.cache_write.unwrap_or(pricing.input)
        + tokens(usage.output) * pricing.output;
    micro / 1_000_000.0
}

#[cfg(test)]
#[path = "capabilities_tests.rs"]
mod tests;
