//! Quirk flags: the known ways endpoints of one wire format differ from each other.
//!
//! The flags are stored per connection under their camelCase names (`noStreamOptions`, …), which
//! [`QuirkFlag::name`] and [`QuirkFlag::from_name`] translate; [`Quirks::from_names`] reads a
//! stored list, skipping the [`RETIRED_QUIRKS`] that earlier versions wrote.

/// Which field carries the output token limit in an OpenAI-compatible request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaxTokensField {
    /// `max_tokens`: what almost every compatible server reads.
    #[default]
    MaxTokens,
    /// `max_completion_tokens`: OpenAI's current name (its reasoning models reject `max_tokens`).
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The JSON field name.
    pub fn field(self) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// How Anthropic thinking is requested when a reasoning effort is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThinkingBudgetMode {
    /// `thinking: {type: "adaptive"}` with `output_config.effort` (current models).
    #[default]
    Adaptive,
    /// `thinking: {type: "enabled", budget_tokens}` with 2048/8192/16384 tokens (older models).
    Manual,
}

/// The quirks of one connection. `Default` is a well-behaved endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// Do not send `stream_options.include_usage` (servers that reject it).
    pub no_stream_options: bool,
    /// Split inline `<think>…</think>` text into reasoning.
    pub think_tag_reasoning: bool,
    /// Ask for one tool call at a time (`parallel_tool_calls:false`, Anthropic
    /// `disable_parallel_tool_use`).
    pub no_parallel_tool_calls: bool,
    /// Field name of the output token limit.
    pub max_tokens_field: MaxTokensField,
    /// Send the system prompt as the start of the first user message.
    pub no_system_role: bool,
    /// Do not replay `reasoning_content` on assistant messages (servers that reject the field).
    pub no_reasoning_replay: bool,
    /// Anthropic thinking mode.
    pub anthropic_thinking: ThinkingBudgetMode,
}

impl Default for Quirks {
    fn default() -> Quirks {
        Quirks::NONE
    }
}

/// One flag, by its stored name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuirkFlag {
    /// See [`Quirks::no_stream_options`].
    NoStreamOptions,
    /// See [`Quirks::think_tag_reasoning`].
    ThinkTagReasoning,
    /// See [`Quirks::no_parallel_tool_calls`].
    NoParallelToolCalls,
    /// `max_completion_tokens` instead of `max_tokens`.
    MaxCompletionTokens,
    /// See [`Quirks::no_system_role`].
    NoSystemRole,
    /// See [`Quirks::no_reasoning_replay`].
    NoReasoningReplay,
    /// Manual Anthropic thinking budgets.
    AnthropicManualThinking,
}

/// Names earlier versions stored that no longer switch anything: they are accepted and dropped.
///
/// `toolCallsOnStop` made the OpenAI-compatible adapter accept tool calls finished with
/// `finish_reason: "stop"`; the adapter now always does (see [`crate::openai`]), so a connection
/// saved with it reads the same and is saved again without it.
pub const RETIRED_QUIRKS: [&str; 1] = ["toolCallsOnStop"];

/// A stored quirk name this version does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown quirk flag {0:?}")]
pub struct UnknownQuirk(pub String);

impl QuirkFlag {
    /// Every flag, in display order.
    pub const ALL: [QuirkFlag; 7] = [
        QuirkFlag::NoStreamOptions,
        QuirkFlag::ThinkTagReasoning,
        QuirkFlag::NoParallelToolCalls,
        QuirkFlag::MaxCompletionTokens,
        QuirkFlag::NoSystemRole,
        QuirkFlag::NoReasoningReplay,
        QuirkFlag::AnthropicManualThinking,
    ];

    /// The stored camelCase name.
    pub fn name(self) -> &'static str {
        match self {
            QuirkFlag::NoStreamOptions => "noStreamOptions",
            QuirkFlag::ThinkTagReasoning => "thinkTagReasoning",
            QuirkFlag::NoParallelToolCalls => "noParallelToolCalls",
            QuirkFlag::MaxCompletionTokens => "maxCompletionTokens",
            QuirkFlag::NoSystemRole => "noSystemRole",
            QuirkFlag::NoReasoningReplay => "noReasoningReplay",
            QuirkFlag::AnthropicManualThinking => "anthropicManualThinking",
        }
    }

    /// The flag stored under `name`.
    pub fn from_name(name: &str) -> Result<QuirkFlag, UnknownQuirk> {
        QuirkFlag::ALL
            .into_iter()
            .find(|flag| flag.name() == name)
            .ok_or_else(|| UnknownQuirk(name.to_owned()))
    }
}

impl Quirks {
    /// No quirks: a well-behaved endpoint (the `Default`, usable in constants).
    pub const NONE: Quirks = Quirks {
        no_stream_options: false,
        think_tag_reasoning: false,
        no_parallel_tool_calls: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        no_system_role: false,
        no_reasoning_replay: false,
        anthropic_thinking: ThinkingBudgetMode::Adaptive,
    };

    /// These quirks with `flag` set.
    pub fn with(mut self, flag: QuirkFlag) -> Quirks {
        match flag {
            QuirkFlag::NoStreamOptions => self.no_stream_options = true,
            QuirkFlag::ThinkTagReasoning => self.think_tag_reasoning = true,
            QuirkFlag::NoParallelToolCalls => self.no_parallel_tool_calls = true,
            QuirkFlag::MaxCompletionTokens => {
                self.max_tokens_field = MaxTokensField::MaxCompletionTokens
            }
            QuirkFlag::NoSystemRole => self.no_system_role = true,
            QuirkFlag::NoReasoningReplay => self.no_reasoning_replay = true,
            QuirkFlag::AnthropicManualThinking => {
                self.anthropic_thinking = ThinkingBudgetMode::Manual
            }
        }
        self
    }

    /// Whether `flag` is set.
    pub fn has(&self, flag: QuirkFlag) -> bool {
        match flag {
            QuirkFlag::NoStreamOptions => self.no_stream_options,
            QuirkFlag::ThinkTagReasoning => self.think_tag_reasoning,
            QuirkFlag::NoParallelToolCalls => self.no_parallel_tool_calls,
            QuirkFlag::MaxCompletionTokens => {
                self.max_tokens_field == MaxTokensField::MaxCompletionTokens
            }
            QuirkFlag::NoSystemRole => self.no_system_role,
            QuirkFlag::NoReasoningReplay => self.no_reasoning_replay,
            QuirkFlag::AnthropicManualThinking => {
                self.anthropic_thinking == ThinkingBudgetMode::Manual
            }
        }
    }

    /// Quirks from stored names; retired names are skipped, an unknown one is an error.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Quirks, UnknownQuirk> {
        let flags = names
            .iter()
            .map(AsRef::as_ref)
            .filter(|name| !RETIRED_QUIRKS.contains(name))
            .map(QuirkFlag::from_name)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Quirks::from_flags(&flags))
    }

    /// Quirks from stored flags.
    pub fn from_flags(flags: &[QuirkFlag]) -> Quirks {
        flags.iter().fold(Quirks::default(), |quirks, &flag| quirks.with(flag))
    }

    /// The flags that are set, in [`QuirkFlag::ALL`] order.
    pub fn flags(&self) -> Vec<QuirkFlag> {
        QuirkFlag::ALL.into_iter().filter(|&flag| self.has(flag)).collect()
    }
}

#[cfg(test)]
#[path = "quirks_tests.rs"]
mod tests;
