//! Per-tool parameters and results of the page executor, with their range checks.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Serialize;
use ts_rs::TS;

use super::DescribeTargetParams;
use super::HighlightParams;
use super::HighlightResult;
use super::LabelRefsParams;
use super::LabelsResult;
use super::TargetDescription;
use super::target::check_describe;
use super::target::check_highlight;
use crate::ids::ElementRef;
use crate::ids::SnapshotId;

/// Default token budget of a snapshot.
pub const SNAPSHOT_DEFAULT_TOKENS: u32 = 3_000;
/// Largest token budget of a snapshot.
pub const SNAPSHOT_MAX_TOKENS: u32 = 6_000;
/// Most actions in one `batch_actions` call (five fields and a submit).
pub const BATCH_MAX_ACTIONS: usize = 6;
/// Longest fixed wait of `wait_for`.
pub const WAIT_FOR_MAX_MS: u32 = 30_000;
/// Most lines one `find_in_page` gives (the page's and its frames' together).
pub const FIND_MAX_HITS: usize = 20;
/// Most dialogs one call answers and reports. The next one throws in the page instead of
/// answering: a page that asks again until it hears yes (`while (!confirm(…))`) would otherwise
/// spin forever on the safe answer.
pub const DIALOGS_MAX: usize = 8;
/// Characters of a dialog's message kept in its report.
pub const DIALOG_MESSAGE_MAX_CHARS: usize = 200;
/// The DOM event through which the dialog guard (in the page's own world, installed by the
/// extension around an action) tells the executor of each dialog it answered: dispatched on the
/// top document, its `detail` a JSON text `{"kind", "message"}`, or `{"kind": "stopped"}` once
/// past [`DIALOGS_MAX`].
pub const DIALOG_EVENT: &str = "panelot-dialog";

/// One tool call for the page executor.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(tag = "tool", content = "params", rename_all = "snake_case")]
pub enum ExecutorCall {
    /// Reads the page: its accessibility snapshot (the `read_page` tool).
    ReadPage(ReadPageParams),
    /// Click an element.
    Click(ClickParams),
    /// Hover an element.
    Hover(RefParams),
    /// Type into an element.
    Type(TypeParams),
    /// Choose options of a select.
    SelectOption(SelectOptionParams),
    /// Press a key (synthetic events).
    PressKey(PressKeyParams),
    /// Put a file on a file input.
    UploadFile(UploadFileParams),
    /// Scroll the page or an element.
    Scroll(ScrollParams),
    /// Wait for text to appear or go, or for some time.
    WaitFor(WaitForParams),
    /// Page or subtree as Markdown, paged.
    Extract(ExtractParams),
    /// Find lines of the snapshot that match a query.
    FindInPage(FindInPageParams),
    /// The user's selection.
    GetSelection(EmptyParams),
    /// Up to six actions in one call.
    BatchActions(BatchActionsParams),
    /// Geometry of an element (for the debugger tools).
    GetRect(RefParams),
    /// Whether a ref still names a live element.
    ValidateRef(RefParams),
    /// Focus an element.
    Focus(RefParams),
    /// Describe the document and elements by ref: what a call would act on and where it leads
    /// (a read: no focus, no scroll, no events).
    DescribeTarget(DescribeTargetParams),
    /// Show (or with no ref, remove) the persistent highlight of one element.
    Highlight(HighlightParams),
    /// Draw (or remove) a label with its ref on every element that has one, for a screenshot.
    LabelRefs(LabelRefsParams),
}

/// No parameters.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct EmptyParams {}

/// Parameters naming one element.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefParams {
    /// The element's ref from the latest snapshot.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
}

/// Parameters of `read_page`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadPageParams {
    /// Token budget, at most [`SNAPSHOT_MAX_TOKENS`].
    pub max_tokens: Option<u32>,
    /// Snapshot only this subtree (to expand a folded region).
    #[serde(rename = "scopeRef")]
    pub scope_ref: Option<ElementRef>,
}

/// Mouse button.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// Primary button.
    Left,
    /// Context-menu button.
    Right,
}

/// Parameters of `click`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClickParams {
    /// The element.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// Which button; left when absent.
    pub button: Option<MouseButton>,
    /// Double click.
    pub double_click: Option<bool>,
}

/// How `type` treats existing text.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TypeMode {
    /// Replace the value.
    Replace,
    /// Append to the value.
    Append,
}

/// Parameters of `type`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TypeParams {
    /// The element.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// Text to type.
    pub text: String,
    /// Replace (default) or append.
    pub mode: Option<TypeMode>,
    /// Submit the form afterwards (Enter).
    pub submit: Option<bool>,
    /// Type one character at a time.
    pub slowly: Option<bool>,
}

/// Parameters of `select_option`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectOptionParams {
    /// The select.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// Values or labels to choose; at least one.
    pub values: Vec<String>,
}

/// Parameters of `upload_file`: the file the user attached, handed over by the engine (never
/// the model's).
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UploadFileParams {
    /// The file input, or a label or button tied to one.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// The attachment as the model named it (its id or its file name).
    pub attachment: String,
    /// The file's name.
    pub name: String,
    /// Its MIME type.
    pub mime: String,
    /// Its bytes, base64.
    pub data_base64: String,
}

/// Parameters of `press_key`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PressKeyParams {
    /// Key such as `Enter`, `Control+a`, `Shift+Tab`.
    pub key: String,
    /// Focus this element first.
    #[serde(rename = "ref")]
    pub element_ref: Option<ElementRef>,
}

/// Direction of `scroll`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
}

/// How far to scroll.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq)]
#[serde(tag = "unit", rename_all = "snake_case", deny_unknown_fields)]
pub enum ScrollAmount {
    /// One viewport.
    Page,
    /// To the end.
    End,
    /// A number of CSS pixels.
    Pixels {
        /// How many.
        px: u32,
    },
}

/// Parameters of `scroll`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScrollParams {
    /// Scroll this element; the window when absent.
    #[serde(rename = "ref")]
    pub element_ref: Option<ElementRef>,
    /// Direction.
    pub direction: ScrollDirection,
    /// Distance; one page when absent.
    pub amount: Option<ScrollAmount>,
}

/// Parameters of `wait_for`: exactly one condition.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitForParams {
    /// Wait until this text appears.
    pub text: Option<String>,
    /// Wait until this text is gone.
    pub text_gone: Option<String>,
    /// Wait this many milliseconds, at most [`WAIT_FOR_MAX_MS`].
    pub time_ms: Option<u32>,
}

/// Parameters of `extract`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtractParams {
    /// Extract this subtree; the whole page when absent.
    #[serde(rename = "ref")]
    pub element_ref: Option<ElementRef>,
    /// Start at this character of the Markdown.
    pub from_char: Option<u32>,
}

/// Parameters of `find_in_page`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindInPageParams {
    /// Case-insensitive text to find.
    pub query: String,
}

/// Parameters of `batch_actions`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchActionsParams {
    /// One to [`BATCH_MAX_ACTIONS`] actions, run in order.
    pub actions: Vec<BatchAction>,
}

/// One action of a batch.
#[derive(Serialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(tag = "kind", content = "params", rename_all = "snake_case")]
pub enum BatchAction {
    /// Click.
    Click(ClickParams),
    /// Type.
    Type(TypeParams),
    /// Choose options.
    SelectOption(SelectOptionParams),
}

/// [`BatchAction`]'s tags, in its order.
const BATCH_KINDS: [&str; 3] = ["click", "type", "select_option"];

/// Reads `{"kind": …, "params": …}` as serde's adjacently tagged form does (other members are
/// ignored, a missing `params` is a missing field), through a JSON value, like
/// [`ExecutorResult`]: serde's decoder buffers `params` when it comes before `kind`, which
/// compiles a second deserializer of each action's parameters.
impl<'de> Deserialize<'de> for BatchAction {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use crate::traced::from_value;
        use serde::de::Error;
        use serde_json::Value;
        let Value::Object(mut fields) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom(
                "invalid type: expected an object with `kind` and `params`",
            ));
        };
        let kind = match fields.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(_) => return Err(D::Error::custom("invalid type: `kind` is not a string")),
            None => return Err(D::Error::missing_field("kind")),
        };
        let idx = BATCH_KINDS
            .iter()
            .position(|known| *known == kind)
            .ok_or_else(|| D::Error::unknown_variant(&kind, &BATCH_KINDS))?;
        let params = fields.remove("params").ok_or_else(|| D::Error::missing_field("params"))?;
        let action = match idx {
            0 => from_value(params).map(BatchAction::Click),
            1 => from_value(params).map(BatchAction::Type),
            _ => from_value(params).map(BatchAction::SelectOption),
        };
        action.map_err(D::Error::custom)
    }
}

/// A tool result of the page executor. Its `Deserialize` is written out (below) rather than
/// derived: serde's adjacently tagged decoder buffers `data` when it comes before `shape`, which
/// compiles a second deserializer of every result type.
#[derive(Serialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(tag = "shape", content = "data", rename_all = "snake_case")]
pub enum ExecutorResult {
    /// A snapshot.
    Snapshot(SnapshotResult),
    /// An action's evidence.
    Action(ActionResult),
    /// Extracted Markdown.
    Extract(ExtractResult),
    /// Find hits.
    Find(FindResult),
    /// The selection.
    Selection(SelectionResult),
    /// A batch's evidence.
    Batch(BatchResult),
    /// Element geometry.
    Rect(RectResult),
    /// Ref validity.
    RefStatus(RefStatusResult),
    /// The document and the elements described.
    Target(TargetDescription),
    /// What a highlight did.
    Highlight(HighlightResult),
    /// What ref labels were drawn.
    Labels(LabelsResult),
}

/// The wire names of the result shapes, in declaration order.
const RESULT_SHAPES: [&str; 11] = [
    "snapshot",
    "action",
    "extract",
    "find",
    "selection",
    "batch",
    "rect",
    "ref_status",
    "target",
    "highlight",
    "labels",
];

/// Reads `{"shape": …, "data": …}` as serde's adjacently tagged form does (other members are
/// ignored, a missing `data` is a missing field), through a JSON value; the one form refused
/// that serde takes is the sequence `[shape, data]`, which nothing writes.
impl<'de> Deserialize<'de> for ExecutorResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use crate::traced::from_value;
        use serde::de::Error;
        use serde_json::Value;
        let Value::Object(mut fields) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom(
                "invalid type: expected an object with `shape` and `data`",
            ));
        };
        let shape = match fields.remove("shape") {
            Some(Value::String(shape)) => shape,
            Some(_) => return Err(D::Error::custom("invalid type: `shape` is not a string")),
            None => return Err(D::Error::missing_field("shape")),
        };
        let idx = RESULT_SHAPES
            .iter()
            .position(|known| *known == shape)
            .ok_or_else(|| D::Error::unknown_variant(&shape, &RESULT_SHAPES))?;
        let data = fields.remove("data").ok_or_else(|| D::Error::missing_field("data"))?;
        let result = match idx {
            0 => from_value(data).map(ExecutorResult::Snapshot),
            1 => from_value(data).map(ExecutorResult::Action),
            2 => from_value(data).map(ExecutorResult::Extract),
            3 => from_value(data).map(ExecutorResult::Find),
            4 => from_value(data).map(ExecutorResult::Selection),
            5 => from_value(data).map(ExecutorResult::Batch),
            6 => from_value(data).map(ExecutorResult::Rect),
            7 => from_value(data).map(ExecutorResult::RefStatus),
            8 => from_value(data).map(ExecutorResult::Target),
            9 => from_value(data).map(ExecutorResult::Highlight),
            _ => from_value(data).map(ExecutorResult::Labels),
        };
        result.map_err(D::Error::custom)
    }
}

/// An accessibility snapshot.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnapshotResult {
    /// This snapshot.
    pub snapshot_id: SnapshotId,
    /// Identity of the document (kept by the engine, never shown to the model).
    pub document_id: String,
    /// Generation of refs within the document.
    pub generation: u32,
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// The snapshot text, one node a line.
    pub text: String,
    /// Refs in the text.
    pub ref_count: u32,
    /// Regions folded into summary lines to fit the budget.
    pub folded_regions: u32,
}

/// Evidence of one action.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionResult {
    /// What was observed.
    pub evidence: ActionEvidence,
    /// How the page's snapshot changed, when the document had an earlier snapshot and is still
    /// there: `+`/`-` snapshot lines, at most 1,500 tokens.
    pub snapshot_diff: Option<String>,
}

/// What happened during an action.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionEvidence {
    /// URL before the action.
    pub url_before: String,
    /// URL after the action.
    pub url_after: String,
    /// How far the effect was confirmed.
    pub effect: EffectState,
    /// Observed effects, in words.
    pub observed: Vec<String>,
    /// Whether the page settled before the deadline.
    pub settled: bool,
    /// Milliseconds from start to settled.
    pub duration_ms: u32,
    /// Dialogs the page opened during the action, each answered at once with its safe answer
    /// (see [`DialogKind`]), at most [`DIALOGS_MAX`] in one call.
    pub dialogs: Vec<PageDialog>,
    /// The page kept opening dialogs past [`DIALOGS_MAX`]: the next one threw in the page.
    pub dialogs_stopped: bool,
}

/// A JavaScript dialog the page opened during an action. Panelot answers it in the page without
/// showing it, so it never blocks the page or the call.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageDialog {
    /// Which dialog, and so how it was answered.
    pub kind: DialogKind,
    /// What it said, at most [`DIALOG_MESSAGE_MAX_CHARS`] characters (empty for
    /// `beforeunload`, whose text browsers no longer show).
    pub message: String,
}

/// A kind of JavaScript dialog, with the answer Panelot gives it during an action.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DialogKind {
    /// `alert()`: OK, its only answer.
    Alert,
    /// `confirm()`: Cancel (`false`).
    Confirm,
    /// `prompt()`: Cancel (`null`, no text).
    Prompt,
    /// A `beforeunload` handler asked to confirm leaving: the page leaves without asking, as the
    /// action that navigated meant (a page cannot be kept without showing the dialog).
    Beforeunload,
}

/// How far an action's effect was confirmed.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EffectState {
    /// Events were dispatched.
    Dispatched,
    /// A change was observed.
    Observed,
    /// The intended state was verified (the value registered, the option selected).
    Verified,
}

/// Extracted Markdown, paged.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtractResult {
    /// The Markdown window.
    pub markdown: String,
    /// Where the window starts.
    pub from_char: u32,
    /// Where the next window starts, if there is more.
    pub next_char: Option<u32>,
    /// Length of the whole Markdown.
    pub total_chars: u32,
}

/// Lines that matched a query.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindResult {
    /// Matching lines, at most [`FIND_MAX_HITS`].
    pub hits: Vec<FindHit>,
    /// All matches, including those not returned.
    pub total: u32,
}

/// One matching line.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FindHit {
    /// The snapshot line.
    pub line: String,
    /// The ref on the line, if any.
    #[serde(rename = "ref")]
    pub element_ref: Option<ElementRef>,
}

/// The user's selection.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectionResult {
    /// Selected text.
    pub text: String,
    /// Page URL.
    pub url: String,
}

/// Evidence of a batch.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchResult {
    /// Actions completed.
    pub completed: u32,
    /// Index of the action the batch stopped before, if it stopped early.
    pub stopped_before: Option<u32>,
    /// Why it stopped early.
    pub stop_reason: Option<String>,
    /// Evidence per completed action.
    pub evidence: Vec<ActionEvidence>,
    /// How the page's snapshot changed over the whole batch (as in [`ActionResult`]).
    pub snapshot_diff: Option<String>,
}

/// Geometry of an element in top-level CSS pixels.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RectResult {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Whether the element is inside the viewport.
    pub in_viewport: bool,
}

/// Whether a ref names a live element.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefStatusResult {
    /// True when the ref is current.
    pub valid: bool,
}

/// A parameter outside its allowed range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{path}` {problem}")]
pub struct RangeError {
    /// Path of the field.
    pub path: String,
    /// What is wrong.
    pub problem: String,
}

pub(super) fn range_error(path: &str, problem: impl Into<String>) -> RangeError {
    RangeError { path: path.to_owned(), problem: problem.into() }
}

/// The wire names of the executor's tools, in declaration order.
const EXECUTOR_TOOLS: [&str; 19] = [
    "read_page",
    "click",
    "hover",
    "type",
    "select_option",
    "press_key",
    "upload_file",
    "scroll",
    "wait_for",
    "extract",
    "find_in_page",
    "get_selection",
    "batch_actions",
    "get_rect",
    "validate_ref",
    "focus",
    "describe_target",
    "highlight",
    "label_refs",
];

impl ExecutorCall {
    /// The call of the tool named `tool` (its wire name) with `params`: what deserializing
    /// `{"tool": tool, "params": params}` gives, with the same errors, but without serde's
    /// buffering of adjacently tagged content, which compiles a second deserializer of every
    /// parameter type (for the engine, which builds calls from a tool name and the model's
    /// parameters).
    pub fn from_tool(tool: &str, params: serde_json::Value) -> Result<Self, serde_json::Error> {
        use crate::traced::from_value;
        Ok(match tool {
            "read_page" => ExecutorCall::ReadPage(from_value(params)?),
            "click" => ExecutorCall::Click(from_value(params)?),
            "hover" => ExecutorCall::Hover(from_value(params)?),
            "type" => ExecutorCall::Type(from_value(params)?),
            "select_option" => ExecutorCall::SelectOption(from_value(params)?),
            "press_key" => ExecutorCall::PressKey(from_value(params)?),
            "upload_file" => ExecutorCall::UploadFile(from_value(params)?),
            "scroll" => ExecutorCall::Scroll(from_value(params)?),
            "wait_for" => ExecutorCall::WaitFor(from_value(params)?),
            "extract" => ExecutorCall::Extract(from_value(params)?),
            "find_in_page" => ExecutorCall::FindInPage(from_value(params)?),
            "get_selection" => ExecutorCall::GetSelection(from_value(params)?),
            "batch_actions" => ExecutorCall::BatchActions(from_value(params)?),
            "get_rect" => ExecutorCall::GetRect(from_value(params)?),
            "validate_ref" => ExecutorCall::ValidateRef(from_value(params)?),
            "focus" => ExecutorCall::Focus(from_value(params)?),
            "describe_target" => ExecutorCall::DescribeTarget(from_value(params)?),
            "highlight" => ExecutorCall::Highlight(from_value(params)?),
            "label_refs" => ExecutorCall::LabelRefs(from_value(params)?),
            other => return Err(serde::de::Error::unknown_variant(other, &EXECUTOR_TOOLS)),
        })
    }

    /// Checks the ranges serde cannot express: budgets, counts, exactly-one conditions.
    pub fn check_ranges(&self) -> Result<(), RangeError> {
        match self {
            ExecutorCall::ReadPage(p) => match p.max_tokens {
                Some(n) if n > SNAPSHOT_MAX_TOKENS => Err(range_error(
                    "params.maxTokens",
                    format!("is {n}, more than {SNAPSHOT_MAX_TOKENS}"),
                )),
                _ => Ok(()),
            },
            ExecutorCall::SelectOption(p) => check_select(p, "params"),
            ExecutorCall::WaitFor(p) => check_wait(p),
            ExecutorCall::FindInPage(p) if p.query.trim().is_empty() => {
                Err(range_error("params.query", "is empty"))
            }
            ExecutorCall::BatchActions(p) => check_batch(p),
            ExecutorCall::DescribeTarget(p) => check_describe(p),
            ExecutorCall::Highlight(p) => check_highlight(p),
            ExecutorCall::Click(_)
            | ExecutorCall::Hover(_)
            | ExecutorCall::Type(_)
            | ExecutorCall::PressKey(_)
            | ExecutorCall::UploadFile(_)
            | ExecutorCall::Scroll(_)
            | ExecutorCall::Extract(_)
            | ExecutorCall::FindInPage(_)
            | ExecutorCall::GetSelection(_)
            | ExecutorCall::GetRect(_)
            | ExecutorCall::ValidateRef(_)
            | ExecutorCall::Focus(_)
            | ExecutorCall::LabelRefs(_) => Ok(()),
        }
    }
}

fn check_select(p: &SelectOptionParams, at: &str) -> Result<(), RangeError> {
    if p.values.is_empty() {
        return Err(range_error(&format!("{at}.values"), "is empty; give at least one value"));
    }
    Ok(())
}

fn check_wait(p: &WaitForParams) -> Result<(), RangeError> {
    let n_conditions = [p.text.is_some(), p.text_gone.is_some(), p.time_ms.is_some()]
        .into_iter()
        .filter(|set| *set)
        .count();
    if n_conditions != 1 {
        return Err(range_error("params", "needs exactly one of `text`, `textGone`, `timeMs`"));
    }
    match p.time_ms {
        Some(ms) if ms > WAIT_FOR_MAX_MS => {
            Err(range_error("params.timeMs", format!("is {ms}, more than {WAIT_FOR_MAX_MS}")))
        }
        _ => Ok(()),
    }
}

fn check_batch(p: &BatchActionsParams) -> Result<(), RangeError> {
    let n_actions = p.actions.len();
    if n_actions == 0 || n_actions > BATCH_MAX_ACTIONS {
        return Err(range_error(
            "params.actions",
            format!("has {n_actions} actions; give 1 to {BATCH_MAX_ACTIONS}"),
        ));
    }
    for (idx, action) in p.actions.iter().enumerate() {
        if let BatchAction::SelectOption(select) = action {
            check_select(select, &format!("params.actions[{idx}].params"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
