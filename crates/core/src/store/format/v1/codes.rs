//! The closed vocabularies stored records hold, each spelled out here with its stored text, so
//! renaming a variant of the protocol or the engine cannot change what is on disk.

use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ProviderErrorKind;
use panelot_protocol::engine::ProviderStopReason;
use panelot_protocol::engine::ReasoningEffort;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;
use panelot_protocol::engine::WatchCondition;
use serde::Deserialize;
use serde::Serialize;

use crate::store::runs::ToolCallStatus;

/// A stored enum of unit variants with their stored texts, and the conversions to and from the
/// domain enum of the same variants. Both conversions are exhaustive matches: a variant added on
/// either side does not compile until it has a stored text (a format change: a new version).
macro_rules! stored_enum {
    ($(#[$doc:meta])* $name:ident <=> $domain:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Serialize, Deserialize, Debug, Clone, Copy)]
        pub(crate) enum $name {
            $(#[serde(rename = $text)] $variant,)*
        }

        impl From<$domain> for $name {
            fn from(it: $domain) -> Self {
                match it {
                    $($domain::$variant => $name::$variant,)*
                }
            }
        }

        impl From<$name> for $domain {
            fn from(it: $name) -> Self {
                match it {
                    $($name::$variant => $domain::$variant,)*
                }
            }
        }
    };
}

stored_enum! {
    /// Where a run's loop is.
    StoredRunState <=> RunState {
        Queued = "queued",
        Preparing = "preparing",
        StreamingModel = "streaming_model",
        WaitingApproval = "waiting_approval",
        WaitingInteraction = "waiting_interaction",
        ExecutingTool = "executing_tool",
        PausedBudget = "paused_budget",
        PausedUncertain = "paused_uncertain",
        PausedByUser = "paused_by_user",
        Interrupted = "interrupted",
        Failed = "failed",
        Completed = "completed",
    }
}

stored_enum! {
    /// Why a run ended.
    StoredStopReason <=> StopReason {
        End = "end",
        MaxTokens = "max_tokens",
        ContentFilter = "content_filter",
        Interrupted = "interrupted",
        Error = "error",
        BudgetPause = "budget_pause",
    }
}

stored_enum! {
    /// Why one model call ended.
    StoredProviderStopReason <=> ProviderStopReason {
        End = "end",
        ToolUse = "tool_use",
        MaxTokens = "max_tokens",
        ContentFilter = "content_filter",
        Interrupted = "interrupted",
    }
}

stored_enum! {
    /// How much the agent may do without asking.
    StoredPolicy <=> PermissionPolicy {
        Always = "always",
        Untrusted = "untrusted",
        Auto = "auto",
    }
}

stored_enum! {
    /// A family of tools.
    StoredToolLevel <=> ToolLevel {
        L0 = "L0",
        L1 = "L1",
        L2 = "L2",
        Mcp = "mcp",
        Builtin = "builtin",
    }
}

stored_enum! {
    /// What an attached context block holds.
    StoredContextKind <=> ContextKind {
        Page = "page",
        Selection = "selection",
        Screenshot = "screenshot",
        Tab = "tab",
        McpResource = "mcp_resource",
        McpPrompt = "mcp_prompt",
        File = "file",
        Skill = "skill",
    }
}

stored_enum! {
    /// Whether content may be followed as instructions.
    StoredTrust <=> Trust {
        Trusted = "trusted",
        Untrusted = "untrusted",
    }
}

stored_enum! {
    /// Who or what produced a piece of content.
    StoredProvenance <=> Provenance {
        User = "user",
        Page = "page",
        Mcp = "mcp",
        Tool = "tool",
        Import = "import",
        Plugin = "plugin",
    }
}

stored_enum! {
    /// How long a reasoning model thinks.
    StoredReasoningEffort <=> ReasoningEffort {
        Low = "low",
        Medium = "medium",
        High = "high",
    }
}

stored_enum! {
    /// A reason on an approval card.
    StoredApprovalFlag <=> ApprovalFlag {
        SensitivePayload = "sensitive_payload",
        EscalationL2 = "escalation_l2",
        HostPermission = "host_permission",
        TaintedInput = "tainted_input",
        InternationalizedHost = "internationalized_host",
    }
}

stored_enum! {
    /// What `watch_page` waits for.
    StoredWatchCondition <=> WatchCondition {
        Text = "text",
        TextGone = "text_gone",
        Url = "url",
    }
}

stored_enum! {
    /// Progress of one tool call.
    StoredToolCallStatus <=> ToolCallStatus {
        Pending = "pending",
        Dispatched = "dispatched",
        Done = "done",
    }
}

stored_enum! {
    /// What became of a tool call.
    StoredCallOutcome <=> CallOutcome {
        Done = "done",
        Failed = "failed",
        Declined = "declined",
        Denied = "denied",
        NotRun = "not_run",
        Unknown = "unknown",
    }
}

stored_enum! {
    /// What failed, on a turn's error.
    StoredErrorCode <=> ErrorCode {
        ProtocolMismatch = "protocol_mismatch",
        ThreadNotFound = "thread_not_found",
        TurnMismatch = "turn_mismatch",
        TurnNotSteerable = "turn_not_steerable",
        NoActiveTurn = "no_active_turn",
        QueueFull = "queue_full",
        Overloaded = "overloaded",
        Interrupted = "interrupted",
        ProviderError = "provider_error",
        NotConfigured = "not_configured",
        InvalidCommand = "invalid_command",
        Internal = "internal",
        AttachmentTooLarge = "attachment_too_large",
        AttachmentNotFound = "attachment_not_found",
        AttachmentIdTaken = "attachment_id_taken",
    }
}

stored_enum! {
    /// The class of a provider failure.
    StoredProviderErrorKind <=> ProviderErrorKind {
        Auth = "auth",
        RateLimit = "rate_limit",
        Overloaded = "overloaded",
        ContextTooLong = "context_too_long",
        ContentFilter = "content_filter",
        Network = "network",
        Protocol = "protocol",
    }
}
