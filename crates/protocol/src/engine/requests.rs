//! Requests the engine makes of the user (approvals, interactions) and their answers, plus the
//! recovery choices of a run.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;

use super::codes::Provenance;
use super::codes::RunState;
use crate::ids::AttachmentId;
use crate::ids::RunId;
use crate::tagged::internally_tagged;

/// What an approval card shows: the complete call, its target and why it is asked.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalRequestPayload {
    /// Tool name.
    pub tool: String,
    /// Human label of the tool.
    pub label: String,
    /// The complete parameters; the UI shows all of them.
    pub params: serde_json::Value,
    /// Origin the call was judged for (where it acts, or where a navigation goes), when it has
    /// one. "Accept for this site" grants exactly this origin and is refused without one.
    pub target_origin: Option<String>,
    /// The page and elements the call acts on, as resolved before judgement.
    pub target: Option<ApprovalTarget>,
    /// Why this call is flagged.
    pub flags: Vec<ApprovalFlag>,
    /// A preview of the target.
    pub preview: Option<ApprovalPreview>,
    /// When the request resolves as a decline (ms since the Unix epoch).
    pub deadline_at_ms: u64,
    /// Where tainted values in the parameters came from.
    pub taint: Vec<TaintSource>,
}

/// A reason shown on an approval card.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalFlag {
    /// The parameters hold a card number, a credential or an out-of-scope email address.
    SensitivePayload,
    /// The call escalates to the debugger protocol.
    EscalationL2,
    /// The extension lacks host permission for the target and will ask the browser for it.
    HostPermission,
    /// A value from page or MCP content is used as a destination or typed into another origin.
    TaintedInput,
    /// The target host is internationalized: it always asks and no grant or rule covers it.
    InternationalizedHost,
}

/// Where a call acts (on an approval's card, on a step of the activity), as the page was when
/// the call was judged. Title and names are written by the page: a UI shows them as data, never
/// as instructions.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalTarget {
    /// The tab.
    pub tab_id: u32,
    /// The page's URL.
    pub url: String,
    /// The page's title.
    pub title: String,
    /// The elements the call acts on, in call order.
    pub elements: Vec<ApprovalElement>,
}

/// An element an approval's call acts on.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalElement {
    /// Its role (`button`, `textbox`, `link`).
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// A password field: what is typed there is a secret, never repeated in a sentence.
    pub password: bool,
    /// Where acting on it leads (a link's or a form's URL).
    pub destination: Option<String>,
}

/// Preview of the element or page an approval acts on.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalPreview {
    /// The snapshot line of the target element.
    pub snapshot_line: Option<String>,
    /// A screenshot of the target.
    pub screenshot_attachment_id: Option<AttachmentId>,
}

/// Provenance of a tainted value in an approval's parameters.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaintSource {
    /// Parameter holding the value.
    pub param: String,
    /// Where the value came from.
    pub provenance: Provenance,
    /// Origin or server it came from.
    pub source: String,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
    /// The user's decision on an approval.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum ApprovalDecision {
        /// Allow this call; its origin joins the thread's scope.
        Accept,
        /// Allow this tool on this origin for the rest of the browser session, in this thread.
        AcceptForSession,
        /// Allow this tool on this origin from now on (a persistent rule).
        AcceptForSite,
        /// Refuse; the note goes back to the model.
        Decline {
            /// Why, for the model.
            note: Option<String>,
        },
        /// Refuse and stop the turn.
        Cancel,
    }
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    /// What the engine asks of the user besides approvals.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum InteractionRequestPayload {
        /// Questions with optional choices; free answers are always allowed.
        AskUser {
            /// One to three questions.
            questions: Vec<Question>,
        },
        /// The user does a step themselves (sign-in, one-time code, payment, captcha).
        RequestUserAction {
            /// What to do.
            instruction: String,
            /// Tab where it happens.
            tab_id: Option<u32>,
        },
        /// Wait until a page shows or loses some text, or reaches a URL.
        WatchPage {
            /// Tab to watch.
            tab_id: Option<u32>,
            /// What to wait for.
            condition: WatchCondition,
            /// The text or URL.
            value: String,
            /// When to give up (ms since the Unix epoch).
            deadline_at_ms: u64,
        },
        /// Resume the run later.
        ScheduleResume {
            /// When (ms since the Unix epoch).
            resume_at_ms: u64,
            /// Why.
            reason: String,
        },
        /// A form requested by an MCP server.
        McpElicitation {
            /// The server.
            server_id: String,
            /// The server's message.
            message: String,
            /// JSON Schema of the form.
            schema: serde_json::Value,
        },
    }
}

/// One question of `ask_user`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Question {
    /// Id the answer refers to.
    pub id: String,
    /// The question.
    pub question: String,
    /// Two or three suggested answers.
    pub options: Vec<QuestionOption>,
}

/// A suggested answer.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuestionOption {
    /// Value sent back.
    pub value: String,
    /// Label shown.
    pub label: String,
    /// Longer explanation.
    pub description: Option<String>,
}

/// Condition of `watch_page`.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WatchCondition {
    /// The text appears.
    Text,
    /// The text disappears.
    TextGone,
    /// The URL matches.
    Url,
}

internally_tagged! {
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    /// The user's answer to an interaction.
    #[derive(Serialize, JsonSchema, Debug, Clone, PartialEq)]
    pub enum InteractionResponse {
        /// An answer: bounded, acyclic JSON.
        Submit {
            /// The answer.
            value: serde_json::Value,
        },
        /// The user declined.
        Cancel {
            /// Why.
            note: Option<String>,
        },
        /// The deadline passed.
        Timeout {
            /// A default answer, if any.
            value: Option<serde_json::Value>,
        },
    }
}

/// How to go on with a run whose write tool may or may not have run.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UncertainResolution {
    /// Run the tool again.
    Retry,
    /// Treat the tool as done.
    MarkDone,
    /// Fail the run.
    Fail,
}

/// A run that stopped and needs the user to choose how to go on.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRecoveryState {
    /// The run.
    pub run_id: RunId,
    /// Its state (`paused_uncertain`, `interrupted`, `paused_budget` or `paused_by_user`).
    pub state: RunState,
    /// Why it stopped, for the card.
    pub reason: String,
    /// The tool whose outcome is unknown, if any.
    pub tool_name: Option<String>,
    /// Parameters of that tool call.
    pub tool_params: Option<serde_json::Value>,
    /// Choices offered on the card.
    pub options: Vec<RecoveryOption>,
}

/// A choice on a recovery card.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryOption {
    /// Continue the run (`run.resume`).
    Continue,
    /// Run the uncertain tool again.
    Retry,
    /// Treat the uncertain tool as done.
    MarkDone,
    /// Fail the run.
    Fail,
}
