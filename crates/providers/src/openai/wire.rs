//! Wire shapes of OpenAI-compatible stream chunks, borrowing from the event text where the JSON
//! has no escapes (the common case), so a text delta costs one allocation.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::Deserializer;
use serde::de;

/// One `chat.completion.chunk`. Unknown fields are ignored: servers add their own.
#[derive(Debug, Deserialize)]
pub(crate) struct Chunk<'a> {
    #[serde(default, borrow)]
    pub(crate) choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    pub(crate) usage: Option<RawUsage>,
    #[serde(default)]
    pub(crate) error: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Choice<'a> {
    #[serde(default)]
    pub(crate) index: Option<u32>,
    #[serde(default, borrow)]
    pub(crate) delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    pub(crate) finish_reason: Option<Cow<'a, str>>,
    /// Moonshot reports usage inside the last choice rather than beside it.
    #[serde(default)]
    pub(crate) usage: Option<RawUsage>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Delta<'a> {
    #[serde(default, borrow)]
    pub(crate) content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) refusal: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToolCallDelta<'a> {
    #[serde(default)]
    pub(crate) index: Option<u32>,
    #[serde(default, borrow)]
    pub(crate) id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) function: Option<FunctionDelta<'a>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct FunctionDelta<'a> {
    #[serde(default, borrow)]
    pub(crate) name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) arguments: Option<Arguments<'a>>,
}

/// Tool-call arguments: a JSON string per the spec; some servers send the object itself, which
/// is kept as its JSON text.
#[derive(Debug)]
pub(crate) struct Arguments<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Arguments<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = Arguments<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tool-call arguments (a string or a JSON value)")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Arguments(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Arguments(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Arguments(Cow::Owned(v)))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Arguments(Cow::Borrowed("")))
            }

            fn visit_map<M: de::MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                let value =
                    serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Arguments(Cow::Owned(value.to_string())))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Token counts as the various servers report them.
#[derive(Debug, Deserialize)]
pub(crate) struct RawUsage {
    #[serde(default)]
    pub(crate) prompt_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) completion_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) prompt_tokens_details: Option<PromptTokensDetails>,
    /// DeepSeek.
    #[serde(default)]
    pub(crate) prompt_cache_hit_tokens: Option<u64>,
    /// Moonshot.
    #[serde(default)]
    pub(crate) cached_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct PromptTokensDetails {
    #[serde(default)]
    pub(crate) cached_tokens: Option<u64>,
    /// OpenRouter (Anthropic and Gemini models behind it).
    #[serde(default)]
    pub(crate) cache_write_tokens: Option<u64>,
}
