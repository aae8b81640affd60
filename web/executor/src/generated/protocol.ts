// Generated from the Rust types in crates/protocol by `cargo xtask protocol --write`.
// Do not edit by hand.

export const CONTENT_PROTOCOL = "panelot/content-v1";
export const CONTENT_SCHEMA_HASH = "e0cedc0427ce462937f90fc87e7d79ead1e26b74285528a2eea39a80e707077b";
export const SNAPSHOT_DEFAULT_TOKENS = 3000;
export const SNAPSHOT_MAX_TOKENS = 6000;
export const BATCH_MAX_ACTIONS = 6;
export const WAIT_FOR_MAX_MS = 30000;
export const FIND_MAX_HITS = 20;
export const DIALOGS_MAX = 8;
export const DIALOG_EVENT = "panelot-dialog";
export const DIALOG_MESSAGE_MAX_CHARS = 200;
export const TARGET_TEXT_MAX_CHARS = 200;
export const TARGET_URL_MAX_CHARS = 4096;
export const HIGHLIGHT_LABEL_MAX_CHARS = 200;
export const LABELS_MAX = 300;

export type RequestId = string;

export type ElementRef = string;

export type SnapshotId = string;

export type ContentRequest = { 
/**
 * Must be [`CONTENT_PROTOCOL`].
 */
protocol: string, 
/**
 * Must be the executor schema hash.
 */
schemaHash: string, 
/**
 * Id of this request; the response echoes it.
 */
requestId: RequestId, 
/**
 * Absolute deadline (ms since the Unix epoch); the executor gives up after it.
 */
deadlineAtMs: number, 
/**
 * The document the call's refs were issued in (the `documentId` of the snapshot that showed
 * them). A call with refs sent to another document fails with `stale_ref`: refs are only
 * unique within a document. `None` skips the check.
 */
refDocumentId: string | null, 
/**
 * The document and origin the call was judged for: checked before anything else (the
 * ref-document check included); elsewhere the call fails with `target_changed`. `None`
 * skips the check.
 */
expected: ExpectedTarget | null, 
/**
 * What to do.
 */
op: ContentOp, };

export type ContentOp = { "kind": "execute", 
/**
 * The call.
 */
call: ExecutorCall, } | { "kind": "cancel", 
/**
 * The request to cancel.
 */
targetRequestId: RequestId, } | { "kind": "ping" };

export type ContentResponse = { 
/**
 * The protocol the executor speaks.
 */
protocol: string, 
/**
 * The request answered.
 */
requestId: RequestId, 
/**
 * What happened.
 */
outcome: ContentOutcome, 
/**
 * Milliseconds from the start of the call in the page (after its wait in the queue) to its
 * answer: the executor's own time, without messaging. `None` for a ping, a cancel, or a
 * call refused before it started.
 */
handledMs: number | null, };

export type ContentOutcome = { "status": "ok", 
/**
 * Its result.
 */
result: ExecutorResult, } | { "status": "failed", 
/**
 * The failure.
 */
failure: ActionFailure, } | { "status": "pong", 
/**
 * Identity of the document the executor runs in.
 */
documentId: string, } | { "status": "cancelled" };

export type ActionFailure = { 
/**
 * The failure class.
 */
code: ActionFailureCode, 
/**
 * Explanation for the model.
 */
message: string, 
/**
 * Phase that failed.
 */
phase: ActionPhase, 
/**
 * Whether trying again may help.
 */
retryable: boolean, 
/**
 * Extra facts (the available options of a select, the occluding element).
 */
details: unknown, };

export type ActionFailureCode = "stale_ref" | "detached" | "not_visible" | "not_stable" | "disabled" | "not_editable" | "occluded" | "ambiguous_target" | "unsupported_frame" | "l1_not_effective" | "navigation_uncertain" | "safety_boundary_unavailable" | "timeout" | "aborted" | "invalid_target" | "target_changed" | "unknown";

export type ActionPhase = "resolve" | "precheck" | "execute" | "settle" | "verify" | "recover";

export type ExecutorCall = { "tool": "read_page", "params": ReadPageParams } | { "tool": "click", "params": ClickParams } | { "tool": "hover", "params": RefParams } | { "tool": "type", "params": TypeParams } | { "tool": "select_option", "params": SelectOptionParams } | { "tool": "press_key", "params": PressKeyParams } | { "tool": "upload_file", "params": UploadFileParams } | { "tool": "scroll", "params": ScrollParams } | { "tool": "wait_for", "params": WaitForParams } | { "tool": "extract", "params": ExtractParams } | { "tool": "find_in_page", "params": FindInPageParams } | { "tool": "get_selection", "params": EmptyParams } | { "tool": "batch_actions", "params": BatchActionsParams } | { "tool": "get_rect", "params": RefParams } | { "tool": "validate_ref", "params": RefParams } | { "tool": "focus", "params": RefParams } | { "tool": "describe_target", "params": DescribeTargetParams } | { "tool": "highlight", "params": HighlightParams } | { "tool": "label_refs", "params": LabelRefsParams };

export type EmptyParams = Record<symbol, never>;

export type RefParams = { 
/**
 * The element's ref from the latest snapshot.
 */
ref: ElementRef, };

export type ReadPageParams = { 
/**
 * Token budget, at most [`SNAPSHOT_MAX_TOKENS`].
 */
maxTokens: number | null, 
/**
 * Snapshot only this subtree (to expand a folded region).
 */
scopeRef: ElementRef | null, };

export type MouseButton = "left" | "right";

export type ClickParams = { 
/**
 * The element.
 */
ref: ElementRef, 
/**
 * Which button; left when absent.
 */
button: MouseButton | null, 
/**
 * Double click.
 */
doubleClick: boolean | null, };

export type TypeMode = "replace" | "append";

export type TypeParams = { 
/**
 * The element.
 */
ref: ElementRef, 
/**
 * Text to type.
 */
text: string, 
/**
 * Replace (default) or append.
 */
mode: TypeMode | null, 
/**
 * Submit the form afterwards (Enter).
 */
submit: boolean | null, 
/**
 * Type one character at a time.
 */
slowly: boolean | null, };

export type SelectOptionParams = { 
/**
 * The select.
 */
ref: ElementRef, 
/**
 * Values or labels to choose; at least one.
 */
values: Array<string>, };

export type UploadFileParams = { 
/**
 * The file input, or a label or button tied to one.
 */
ref: ElementRef, 
/**
 * The attachment as the model named it (its id or its file name).
 */
attachment: string, 
/**
 * The file's name.
 */
name: string, 
/**
 * Its MIME type.
 */
mime: string, 
/**
 * Its bytes, base64.
 */
dataBase64: string, };

export type PressKeyParams = { 
/**
 * Key such as `Enter`, `Control+a`, `Shift+Tab`.
 */
key: string, 
/**
 * Focus this element first.
 */
ref: ElementRef | null, };

export type ScrollDirection = "up" | "down";

export type ScrollAmount = { "unit": "page" } | { "unit": "end" } | { "unit": "pixels", 
/**
 * How many.
 */
px: number, };

export type ScrollParams = { 
/**
 * Scroll this element; the window when absent.
 */
ref: ElementRef | null, 
/**
 * Direction.
 */
direction: ScrollDirection, 
/**
 * Distance; one page when absent.
 */
amount: ScrollAmount | null, };

export type WaitForParams = { 
/**
 * Wait until this text appears.
 */
text: string | null, 
/**
 * Wait until this text is gone.
 */
textGone: string | null, 
/**
 * Wait this many milliseconds, at most [`WAIT_FOR_MAX_MS`].
 */
timeMs: number | null, };

export type ExtractParams = { 
/**
 * Extract this subtree; the whole page when absent.
 */
ref: ElementRef | null, 
/**
 * Start at this character of the Markdown.
 */
fromChar: number | null, };

export type FindInPageParams = { 
/**
 * Case-insensitive text to find.
 */
query: string, };

export type BatchActionsParams = { 
/**
 * One to [`BATCH_MAX_ACTIONS`] actions, run in order.
 */
actions: Array<BatchAction>, };

export type BatchAction = { "kind": "click", "params": ClickParams } | { "kind": "type", "params": TypeParams } | { "kind": "select_option", "params": SelectOptionParams };

export type ExecutorResult = { "shape": "snapshot", "data": SnapshotResult } | { "shape": "action", "data": ActionResult } | { "shape": "extract", "data": ExtractResult } | { "shape": "find", "data": FindResult } | { "shape": "selection", "data": SelectionResult } | { "shape": "batch", "data": BatchResult } | { "shape": "rect", "data": RectResult } | { "shape": "ref_status", "data": RefStatusResult } | { "shape": "target", "data": TargetDescription } | { "shape": "highlight", "data": HighlightResult } | { "shape": "labels", "data": LabelsResult };

export type SnapshotResult = { 
/**
 * This snapshot.
 */
snapshotId: SnapshotId, 
/**
 * Identity of the document (kept by the engine, never shown to the model).
 */
documentId: string, 
/**
 * Generation of refs within the document.
 */
generation: number, 
/**
 * Page URL.
 */
url: string, 
/**
 * Page title.
 */
title: string, 
/**
 * The snapshot text, one node a line.
 */
text: string, 
/**
 * Refs in the text.
 */
refCount: number, 
/**
 * Regions folded into summary lines to fit the budget.
 */
foldedRegions: number, };

export type ActionResult = { 
/**
 * What was observed.
 */
evidence: ActionEvidence, 
/**
 * How the page's snapshot changed, when the document had an earlier snapshot and is still
 * there: `+`/`-` snapshot lines, at most 1,500 tokens.
 */
snapshotDiff: string | null, };

export type ActionEvidence = { 
/**
 * URL before the action.
 */
urlBefore: string, 
/**
 * URL after the action.
 */
urlAfter: string, 
/**
 * How far the effect was confirmed.
 */
effect: EffectState, 
/**
 * Observed effects, in words.
 */
observed: Array<string>, 
/**
 * Whether the page settled before the deadline.
 */
settled: boolean, 
/**
 * Milliseconds from start to settled.
 */
durationMs: number, 
/**
 * Dialogs the page opened during the action, each answered at once with its safe answer
 * (see [`DialogKind`]), at most [`DIALOGS_MAX`] in one call.
 */
dialogs: Array<PageDialog>, 
/**
 * The page kept opening dialogs past [`DIALOGS_MAX`]: the next one threw in the page.
 */
dialogsStopped: boolean, };

export type PageDialog = { 
/**
 * Which dialog, and so how it was answered.
 */
kind: DialogKind, 
/**
 * What it said, at most [`DIALOG_MESSAGE_MAX_CHARS`] characters (empty for
 * `beforeunload`, whose text browsers no longer show).
 */
message: string, };

export type DialogKind = "alert" | "confirm" | "prompt" | "beforeunload";

export type EffectState = "dispatched" | "observed" | "verified";

export type ExtractResult = { 
/**
 * The Markdown window.
 */
markdown: string, 
/**
 * Where the window starts.
 */
fromChar: number, 
/**
 * Where the next window starts, if there is more.
 */
nextChar: number | null, 
/**
 * Length of the whole Markdown.
 */
totalChars: number, };

export type FindResult = { 
/**
 * Matching lines, at most [`FIND_MAX_HITS`].
 */
hits: Array<FindHit>, 
/**
 * All matches, including those not returned.
 */
total: number, };

export type FindHit = { 
/**
 * The snapshot line.
 */
line: string, 
/**
 * The ref on the line, if any.
 */
ref: ElementRef | null, };

export type SelectionResult = { 
/**
 * Selected text.
 */
text: string, 
/**
 * Page URL.
 */
url: string, };

export type BatchResult = { 
/**
 * Actions completed.
 */
completed: number, 
/**
 * Index of the action the batch stopped before, if it stopped early.
 */
stoppedBefore: number | null, 
/**
 * Why it stopped early.
 */
stopReason: string | null, 
/**
 * Evidence per completed action.
 */
evidence: Array<ActionEvidence>, 
/**
 * How the page's snapshot changed over the whole batch (as in [`ActionResult`]).
 */
snapshotDiff: string | null, };

export type RectResult = { 
/**
 * Left edge.
 */
x: number, 
/**
 * Top edge.
 */
y: number, 
/**
 * Width.
 */
width: number, 
/**
 * Height.
 */
height: number, 
/**
 * Whether the element is inside the viewport.
 */
inViewport: boolean, };

export type RefStatusResult = { 
/**
 * True when the ref is current.
 */
valid: boolean, };

export type ExpectedTarget = { 
/**
 * The document's id, as the executor reported it (`pong`, a snapshot, `describe_target`).
 */
documentId: string, 
/**
 * The document's origin as the executor reports it in [`TargetDescription::origin`].
 */
origin: string, };

export type DescribeTargetParams = { 
/**
 * Elements to describe, at most [`BATCH_MAX_ACTIONS`]; none describes the document only.
 */
targets: Array<DescribeItem>, };

export type DescribeItem = { 
/**
 * The element.
 */
ref: ElementRef, 
/**
 * The call submits the element's form (`type` with `submit`, `press_key` Enter): report
 * that submission as the destination when the element is in a form.
 */
submits: boolean, };

export type TargetDescription = { 
/**
 * Identity of the document (the `documentId` of its snapshots).
 */
documentId: string, 
/**
 * The document's URL.
 */
url: string, 
/**
 * The document's origin (see the module documentation for its spelling).
 */
origin: string, 
/**
 * The document's title.
 */
title: string, 
/**
 * One per requested ref, in the order asked.
 */
elements: Array<ElementDescription>, };

export type ElementDescription = { 
/**
 * The ref asked about.
 */
ref: ElementRef, 
/**
 * The role as the element's snapshot line shows it (`button`, `link`, `textbox`, `h2`;
 * `clickable` or `focusable` for an element without one).
 */
role: string, 
/**
 * The accessible name as the snapshot line shows it (may be empty).
 */
name: string, 
/**
 * The tag name, lowercase (`button`, `input`, `a`, `div`).
 */
tag: string, 
/**
 * The `type` of an `<input>` as the browser reads it (`text` when missing or unknown);
 * `None` for other elements.
 */
inputType: string | null, 
/**
 * A password field: `<input type=password>`, or an input or textarea whose `autocomplete`
 * names a password (`current-password`, `new-password`).
 */
password: boolean, 
/**
 * Where acting on it leads; `None` when it is neither a link nor a form submission.
 */
destination: Destination | null, };

export type Destination = { 
/**
 * A link or a form submission.
 */
kind: DestinationKind, 
/**
 * Absolute URL: a link's `href`, or a submission's action (`formaction` overrides `action`;
 * an empty action is the document's URL), resolved against the document's base URL and
 * without the form data. Other schemes are reported as they are (`javascript:…`, `data:…`);
 * a URL the browser cannot parse is reported as written.
 */
url: string, 
/**
 * The submission's method (`formmethod` overrides `method`); `None` for a link.
 */
method: FormMethod | null, };

export type DestinationKind = "link" | "form_submit";

export type FormMethod = "get" | "post";

export type HighlightParams = { 
/**
 * The element to highlight, replacing any highlight shown; `None` removes it.
 */
ref: ElementRef | null, 
/**
 * Text of a label chip next to the element (`Panelot wants to click this`), at most
 * [`HIGHLIGHT_LABEL_MAX_CHARS`]; no chip when `None`.
 */
label: string | null, };

export type HighlightResult = { 
/**
 * A highlight is up now (false after removing it, or when it could not be drawn).
 */
shown: boolean, 
/**
 * The element's box is in the viewport now (the user can see it without scrolling).
 */
inViewport: boolean, };

export type LabelRefsParams = { 
/**
 * Draw a label on every element with a ref (true), or remove the labels (false).
 */
show: boolean, };

export type LabelsResult = { 
/**
 * Elements labelled (at most [`LABELS_MAX`]); 0 after removing them.
 */
drawn: number, 
/**
 * Of those, the ones in the viewport now.
 */
inViewport: number, };
