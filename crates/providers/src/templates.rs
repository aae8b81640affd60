//! Connection templates: the endpoints Panelot knows, with their default base URLs and quirks.
//!
//! A template only pre-fills a new connection; the user may change every field. The table is
//! data so that the settings UI, the docs and the tests read the same facts.

use crate::quirks::MaxTokensField;
use crate::quirks::Quirks;

/// The wire protocol of a connection. There is deliberately no third one: other services are
/// reached through their OpenAI-compatible layers. Stored as a connection's `kind`
/// (`"openai"`, `"anthropic"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WireFormat {
    /// `POST {base}/chat/completions`.
    #[serde(rename = "openai")]
    OpenAi,
    /// `POST {base}/v1/messages`.
    #[serde(rename = "anthropic")]
    Anthropic,
}

/// Whether the endpoint needs a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRequirement {
    /// A hosted API: calls without a key fail.
    Required,
    /// A local server: usually none.
    Optional,
}

/// One template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionTemplate {
    /// Stable id (`openai`, `ollama`, …).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Wire protocol.
    pub wire: WireFormat,
    /// Default base URL; empty for `custom`.
    pub base_url: &'static str,
    /// Known quirks.
    pub quirks: Quirks,
    /// Whether a key is needed.
    pub key: KeyRequirement,
}

/// Every template, in display order.
pub const TEMPLATES: [ConnectionTemplate; 12] = [
    ConnectionTemplate {
        id: "openai",
        name: "OpenAI",
        wire: WireFormat::OpenAi,
        base_url: "https://api.openai.com/v1",
        // Its reasoning models reject `max_tokens`; it never sends `reasoning_content`, so a
        // thread that switched from another provider does not replay it there.
        quirks: Quirks {
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            no_reasoning_replay: true,
            ..Quirks::NONE
        },
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "anthropic",
        name: "Anthropic",
        wire: WireFormat::Anthropic,
        base_url: "https://api.anthropic.com",
        quirks: Quirks::NONE,
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "openrouter",
        name: "OpenRouter",
        wire: WireFormat::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "deepseek",
        name: "DeepSeek",
        wire: WireFormat::OpenAi,
        base_url: "https://api.deepseek.com",
        // `reasoning_content` is read either way; the tags cover R1-style models that inline it.
        quirks: Quirks { think_tag_reasoning: true, ..Quirks::NONE },
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "moonshot",
        name: "Moonshot (Kimi)",
        wire: WireFormat::OpenAi,
        base_url: "https://api.moonshot.ai/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "zhipu",
        name: "Zhipu GLM",
        wire: WireFormat::OpenAi,
        base_url: "https://open.bigmodel.cn/api/paas/v4",
        quirks: Quirks::NONE,
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "dashscope",
        name: "DashScope (Qwen)",
        wire: WireFormat::OpenAi,
        base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Required,
    },
    ConnectionTemplate {
        id: "ollama",
        name: "Ollama",
        wire: WireFormat::OpenAi,
        base_url: "http://localhost:11434/v1",
        // Older versions reject `stream_options`. Its tool calls finish with "stop", which the
        // adapter accepts from every endpoint.
        quirks: Quirks { no_stream_options: true, ..Quirks::NONE },
        key: KeyRequirement::Optional,
    },
    ConnectionTemplate {
        id: "lmstudio",
        name: "LM Studio",
        wire: WireFormat::OpenAi,
        base_url: "http://localhost:1234/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Optional,
    },
    ConnectionTemplate {
        id: "llamacpp",
        name: "llama.cpp server",
        wire: WireFormat::OpenAi,
        base_url: "http://localhost:8080/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Optional,
    },
    ConnectionTemplate {
        id: "vllm",
        name: "vLLM",
        wire: WireFormat::OpenAi,
        base_url: "http://localhost:8000/v1",
        quirks: Quirks::NONE,
        key: KeyRequirement::Optional,
    },
    ConnectionTemplate {
        id: "custom",
        name: "Custom (OpenAI-compatible)",
        wire: WireFormat::OpenAi,
        base_url: "",
        quirks: Quirks::NONE,
        key: KeyRequirement::Optional,
    },
];

/// The template with `id`.
pub fn template(id: &str) -> Option<&'static ConnectionTemplate> {
    TEMPLATES.iter().find(|template| template.id == id)
}

#[cfg(test)]
#[path = "templates_tests.rs"]
mod tests;
