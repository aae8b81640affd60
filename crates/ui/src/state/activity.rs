//! Agent activity as a person reads it: a tool call as one sentence that says what it does and
//! where ("Click link “Pricing” on shop.example"), the state of a step (running, waiting for you,
//! done, failed, declined, not allowed, not run), a group of steps summed up ("Read the page ·
//! typed into 3 fields"), and the sentence of an approval card.
//!
//! The words come from the tool, its parameters and the target the engine resolved (the page and
//! the elements, as the page names them). Page-written words are quoted and cut, and a sentence
//! is filled in one pass, so a name that looks like a `{placeholder}` stays as written. What is
//! typed into a password field is never repeated.

use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;
use serde_json::Value;

use super::thread_view::EntryKey;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;

/// Longest page-written name, title or typed text in a sentence, in characters.
const WORDS_CHARS: usize = 60;
/// Longest address in a sentence, in characters.
const URL_CHARS: usize = 60;

/// Where a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    /// Not finished yet.
    Running,
    /// Its approval waits for the user.
    Waiting,
    /// It ran and worked.
    Done,
    /// It ran and failed, or the call was invalid.
    Failed,
    /// The user said no.
    Declined,
    /// The user's permissions said no.
    Denied,
    /// The turn ended before it ran.
    NotRun,
    /// The turn ended while it ran.
    Unknown,
}

impl StepStatus {
    /// The state a finished call's outcome gives its step.
    pub fn of(outcome: CallOutcome) -> StepStatus {
        match outcome {
            CallOutcome::Done => StepStatus::Done,
            CallOutcome::Failed => StepStatus::Failed,
            CallOutcome::Declined => StepStatus::Declined,
            CallOutcome::Denied => StepStatus::Denied,
            CallOutcome::NotRun => StepStatus::NotRun,
            CallOutcome::Unknown => StepStatus::Unknown,
        }
    }

    /// The words for it.
    pub fn label(self) -> Msg {
        match self {
            StepStatus::Running => Msg::CallRunning,
            StepStatus::Waiting => Msg::CallWaiting,
            StepStatus::Done => Msg::CallDone,
            StepStatus::Failed => Msg::CallFailed,
            StepStatus::Declined => Msg::CallDeclined,
            StepStatus::Denied => Msg::CallDenied,
            StepStatus::NotRun => Msg::CallNotRun,
            StepStatus::Unknown => Msg::CallUnknown,
        }
    }

    /// Its name for `data-status` (styles and tests).
    pub fn name(self) -> &'static str {
        match self {
            StepStatus::Running => "running",
            StepStatus::Waiting => "waiting",
            StepStatus::Done => "done",
            StepStatus::Failed => "failed",
            StepStatus::Declined => "declined",
            StepStatus::Denied => "denied",
            StepStatus::NotRun => "not_run",
            StepStatus::Unknown => "unknown",
        }
    }
}

/// One tool call of the activity, as its line shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The entry it is.
    pub key: EntryKey,
    /// The tool's wire name.
    pub tool_name: String,
    /// Its parameters, once known.
    pub params: Option<Value>,
    /// Where it acts: the page and elements, once resolved.
    pub target: Option<ApprovalTarget>,
    /// The site it is judged for when the target does not say (a waiting approval's origin).
    pub origin: Option<String>,
    /// Where it is.
    pub status: StepStatus,
    /// What the tool said, or why it did not run.
    pub excerpt: Option<String>,
}

impl Step {
    /// Its line: what it did (once done) or does, and where.
    pub fn sentence(&self, lang: Lang) -> String {
        let call = Call {
            tool: &self.tool_name,
            params: self.params.as_ref(),
            target: self.target.as_ref(),
            origin: self.origin.as_deref(),
        };
        call_sentence(lang, &call, self.status == StepStatus::Done)
    }
}

/// What a sentence is made of.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The tool's wire name.
    pub tool: &'a str,
    /// The parameters, when known.
    pub params: Option<&'a Value>,
    /// The page and elements, when resolved.
    pub target: Option<&'a ApprovalTarget>,
    /// The origin judged, when the target does not name the page.
    pub origin: Option<&'a str>,
}

/// The approval card's sentence: what the call will do, and where.
pub fn approval_sentence(lang: Lang, request: &ApprovalRequestPayload) -> String {
    let call = Call {
        tool: &request.tool,
        params: Some(&request.params),
        target: request.target.as_ref(),
        origin: request.target_origin.as_deref(),
    };
    call_sentence(lang, &call, false)
}

/// `request` with an `upload_file`'s attachment named by its file's name, when `name_of`
/// knows the id (the files of the thread's messages): what the card's sentence says.
pub fn with_file_names(
    request: &ApprovalRequestPayload,
    name_of: impl Fn(&str) -> Option<String>,
) -> ApprovalRequestPayload {
    let mut request = request.clone();
    if request.tool == "upload_file"
        && let Some(name) =
            request.params.get("attachment").and_then(Value::as_str).and_then(name_of)
    {
        request.params["attachment"] = Value::String(name);
    }
    request
}

/// What `call` does (`done`: did), in one sentence, with the site it acts on.
pub fn call_sentence(lang: Lang, call: &Call<'_>, done: bool) -> String {
    let pick = |base: Msg, past: Msg| if done { past } else { base };
    let param = |name: &str| call.params.and_then(|p| p.get(name));
    let text_param =
        |name: &str| param(name).and_then(Value::as_str).map(|t| words(t, WORDS_CHARS));
    let element = || element_phrase(lang, call.target.and_then(|t| t.elements.first()));
    let title = || {
        let title = call.target.map(|t| t.title.as_str()).unwrap_or_default();
        words(title, WORDS_CHARS)
    };
    // The sentence, and whether it names where it acts already (an address).
    let (action, names_place) = match call.tool {
        "tabs_list" => (text(lang, pick(Msg::ActTabsList, Msg::ActTabsListDone)), true),
        "tab_open" | "navigate" => {
            let url = text_param("url").map(|u| short_url(&u)).unwrap_or_default();
            let msg = match call.tool {
                "tab_open" => pick(Msg::ActTabOpen, Msg::ActTabOpenDone),
                _ => pick(Msg::ActNavigate, Msg::ActNavigateDone),
            };
            (fill(lang, msg, &[("url", &url)]), true)
        }
        "tab_focus" => (
            fill(lang, pick(Msg::ActTabFocus, Msg::ActTabFocusDone), &[("title", &title())]),
            false,
        ),
        "tab_close" => (
            fill(lang, pick(Msg::ActTabClose, Msg::ActTabCloseDone), &[("title", &title())]),
            false,
        ),
        "go_back" => (text(lang, pick(Msg::ActGoBack, Msg::ActGoBackDone)), false),
        "go_forward" => (text(lang, pick(Msg::ActGoForward, Msg::ActGoForwardDone)), false),
        "read_page" | "read_page_deep" => {
            (text(lang, pick(Msg::ActReadPage, Msg::ActReadPageDone)), false)
        }
        "find_in_page" => {
            let query = text_param("query").unwrap_or_default();
            (fill(lang, pick(Msg::ActFind, Msg::ActFindDone), &[("query", &query)]), false)
        }
        "extract" => (text(lang, pick(Msg::ActExtract, Msg::ActExtractDone)), false),
        "get_selection" => (text(lang, pick(Msg::ActSelection, Msg::ActSelectionDone)), false),
        "click" | "click_trusted" => {
            (fill(lang, pick(Msg::ActClick, Msg::ActClickDone), &[("element", &element())]), false)
        }
        "hover" => {
            (fill(lang, pick(Msg::ActHover, Msg::ActHoverDone), &[("element", &element())]), false)
        }
        "type" | "type_trusted" => {
            let secret = call
                .target
                .and_then(|t| t.elements.first())
                .is_some_and(|element| element.password);
            let element = element();
            let sentence = if secret {
                let msg = pick(Msg::ActTypeSecret, Msg::ActTypeSecretDone);
                fill(lang, msg, &[("element", &element)])
            } else {
                let typed = text_param("text").unwrap_or_default();
                let msg = pick(Msg::ActType, Msg::ActTypeDone);
                fill(lang, msg, &[("text", &typed), ("element", &element)])
            };
            (sentence, false)
        }
        "select_option" => {
            let values: Vec<String> = param("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|v| format!("“{}”", words(v, WORDS_CHARS)))
                .collect();
            let msg = pick(Msg::ActSelect, Msg::ActSelectDone);
            (fill(lang, msg, &[("values", &values.join(", ")), ("element", &element())]), false)
        }
        "scroll" => {
            let msg = match param("direction").and_then(Value::as_str) {
                Some("up") => pick(Msg::ActScrollUp, Msg::ActScrollUpDone),
                _ => pick(Msg::ActScrollDown, Msg::ActScrollDownDone),
            };
            (text(lang, msg), false)
        }
        "wait_for" => {
            let sentence = if let Some(shown) = text_param("text") {
                fill(lang, pick(Msg::ActWaitText, Msg::ActWaitTextDone), &[("text", &shown)])
            } else if let Some(gone) = text_param("textGone") {
                fill(lang, pick(Msg::ActWaitGone, Msg::ActWaitGoneDone), &[("text", &gone)])
            } else {
                let ms = param("timeMs").and_then(Value::as_u64).unwrap_or(0);
                let seconds = format_seconds(ms);
                fill(lang, pick(Msg::ActWaitTime, Msg::ActWaitTimeDone), &[("seconds", &seconds)])
            };
            (sentence, false)
        }
        "press_key" => {
            let key = text_param("key").unwrap_or_default();
            (fill(lang, pick(Msg::ActPressKey, Msg::ActPressKeyDone), &[("key", &key)]), false)
        }
        "batch_actions" => {
            let n = param("actions").and_then(Value::as_array).map_or(0, Vec::len);
            let msg = pick(Msg::ActBatch, Msg::ActBatchDone);
            (fill(lang, msg, &[("n", &n.to_string())]), false)
        }
        "screenshot" => (text(lang, pick(Msg::ActScreenshot, Msg::ActScreenshotDone)), false),
        "run_javascript" => (text(lang, pick(Msg::ActJavascript, Msg::ActJavascriptDone)), false),
        "ask_user" => (text(lang, pick(Msg::ActAskUser, Msg::ActAskUserDone)), true),
        "request_user_action" => {
            (text(lang, pick(Msg::ActUserAction, Msg::ActUserActionDone)), true)
        }
        "fetch_url" => {
            let url = text_param("url").map(|u| short_url(&u)).unwrap_or_default();
            (fill(lang, pick(Msg::ActFetch, Msg::ActFetchDone), &[("url", &url)]), true)
        }
        "load_tools" => {
            let group = match param("group").and_then(Value::as_str) {
                Some("memory") => text(lang, Msg::GroupMemory),
                Some("files") => text(lang, Msg::GroupFiles),
                other => words(other.unwrap_or_default(), WORDS_CHARS),
            };
            let msg = pick(Msg::ActLoadTools, Msg::ActLoadToolsDone);
            (fill(lang, msg, &[("group", &group)]), true)
        }
        "memory_read" => match text_param("key").filter(|k| !k.is_empty()) {
            Some(key) => {
                let msg = pick(Msg::ActMemoryRead, Msg::ActMemoryReadDone);
                (fill(lang, msg, &[("key", &key)]), true)
            }
            None => (text(lang, pick(Msg::ActMemoryList, Msg::ActMemoryListDone)), true),
        },
        "memory_write" => {
            let key = text_param("key").unwrap_or_default();
            let deletes = param("value").and_then(Value::as_str).is_some_and(str::is_empty);
            let msg = match deletes {
                true => pick(Msg::ActMemoryDelete, Msg::ActMemoryDeleteDone),
                false => pick(Msg::ActMemoryWrite, Msg::ActMemoryWriteDone),
            };
            (fill(lang, msg, &[("key", &key)]), true)
        }
        "artifact_create" => {
            let name = text_param("filename").unwrap_or_default();
            (fill(lang, pick(Msg::ActArtifact, Msg::ActArtifactDone), &[("name", &name)]), true)
        }
        "download" => {
            let what = match (text_param("url"), text_param("artifact")) {
                (Some(url), _) => short_url(&url),
                (None, Some(name)) => format!("“{name}”"),
                (None, None) => String::new(),
            };
            (fill(lang, pick(Msg::ActDownload, Msg::ActDownloadDone), &[("what", &what)]), true)
        }
        // The file as the model named it (an id, or a name); a card names the file by its name
        // ([`with_file_names`]).
        "upload_file" => {
            let file = text_param("attachment").unwrap_or_default();
            let msg = pick(Msg::ActUpload, Msg::ActUploadDone);
            (fill(lang, msg, &[("file", &file), ("element", &element())]), false)
        }
        // A tool without a sentence of its own says its title.
        _ => (words(&i18n::tool_title(lang, call.tool), WORDS_CHARS), false),
    };
    let site = call.target.and_then(|t| site_of(&t.url)).or_else(|| call.origin.and_then(site_of));
    match site {
        Some(site) if !names_place => {
            fill(lang, Msg::OnSite, &[("action", &action), ("site", &site)])
        }
        _ => action,
    }
}

/// The element a call acts on, as "link “Pricing”".
fn element_phrase(lang: Lang, element: Option<&ApprovalElement>) -> String {
    let Some(element) = element.filter(|e| !e.role.trim().is_empty()) else {
        return text(lang, Msg::ElementUnknown);
    };
    let role = match element.role.trim().to_ascii_lowercase().as_str() {
        "link" => text(lang, Msg::RoleLink),
        "button" => text(lang, Msg::RoleButton),
        "textbox" => text(lang, Msg::RoleTextbox),
        "searchbox" => text(lang, Msg::RoleSearchbox),
        "checkbox" => text(lang, Msg::RoleCheckbox),
        "radio" => text(lang, Msg::RoleRadio),
        "combobox" | "listbox" => text(lang, Msg::RoleCombobox),
        "menuitem" => text(lang, Msg::RoleMenuItem),
        "tab" => text(lang, Msg::RoleTab),
        "switch" => text(lang, Msg::RoleSwitch),
        _ => words(&element.role, WORDS_CHARS),
    };
    let name = words(&element.name, WORDS_CHARS);
    if name.is_empty() {
        fill(lang, Msg::ElementUnnamed, &[("role", &role)])
    } else {
        fill(lang, Msg::ElementNamed, &[("role", &role), ("name", &name)])
    }
}

/// What a group of steps did, in one line: "Read the page · typed into 3 fields · 1 declined".
/// A step still going (or waiting for the user) is said by the group's state, not here.
pub fn group_summary(lang: Lang, steps: &[Step]) -> String {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Read,
        Type,
        Click,
        Go,
        Tabs,
        Ask,
        Other,
    }
    let kind_of = |tool: &str| match tool {
        "read_page" | "read_page_deep" | "find_in_page" | "extract" | "get_selection"
        | "screenshot" | "scroll" | "wait_for" | "fetch_url" => Kind::Read,
        "type" | "type_trusted" | "select_option" => Kind::Type,
        "click" | "click_trusted" | "click_xy" => Kind::Click,
        "navigate" | "tab_open" | "go_back" | "go_forward" => Kind::Go,
        "tabs_list" => Kind::Tabs,
        "ask_user" | "request_user_action" => Kind::Ask,
        _ => Kind::Other,
    };
    // What happened, by kind in order of first appearance; then what did not.
    let mut kinds: Vec<(Kind, usize)> = Vec::new();
    let count = |status: StepStatus| steps.iter().filter(|s| s.status == status).count();
    for step in steps.iter().filter(|s| matches!(s.status, StepStatus::Done | StepStatus::Running))
    {
        let kind = kind_of(&step.tool_name);
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let mut parts: Vec<String> = kinds
        .into_iter()
        .map(|(kind, n)| {
            let (one, many) = match kind {
                Kind::Read => (Msg::SumRead, Msg::SumReadN),
                Kind::Type => (Msg::SumType, Msg::SumTypeN),
                Kind::Click => (Msg::SumClick, Msg::SumClickN),
                Kind::Go => (Msg::SumGo, Msg::SumGoN),
                Kind::Tabs => (Msg::SumTabs, Msg::SumTabs),
                Kind::Ask => (Msg::SumAsk, Msg::SumAsk),
                Kind::Other => (Msg::SumOther, Msg::SumOtherN),
            };
            if n == 1 { text(lang, one) } else { fill(lang, many, &[("n", &n.to_string())]) }
        })
        .collect();
    for (status, msg) in [
        (StepStatus::Failed, Msg::SumFailed),
        (StepStatus::Unknown, Msg::SumStopped),
        (StepStatus::Declined, Msg::SumDeclined),
        (StepStatus::Denied, Msg::SumDenied),
        (StepStatus::NotRun, Msg::SumNotRun),
    ] {
        let n = count(status);
        if n > 0 {
            parts.push(fill(lang, msg, &[("n", &n.to_string())]));
        }
    }
    capitalized(&parts.join(" · "))
}

/// The state that sums up a group: what needs the user first, then what is still going, then
/// what went wrong, else done.
pub fn group_status(steps: &[Step]) -> StepStatus {
    let order = [
        StepStatus::Waiting,
        StepStatus::Running,
        StepStatus::Failed,
        StepStatus::Unknown,
        StepStatus::Declined,
        StepStatus::Denied,
        StepStatus::NotRun,
    ];
    order
        .into_iter()
        .find(|s| steps.iter().any(|step| step.status == *s))
        .unwrap_or(StepStatus::Done)
}

/// The markup of a row of steps: one step as its line; several as one block whose summary line
/// sums them up and which opens to their lines. A step with something to show (what the tool
/// said, why it did not run) opens to it. `open` says which of them (by `data-key`) the person
/// opened, so a row drawn again keeps them open. Every word is escaped.
pub fn steps_html(lang: Lang, steps: &[Step], open: &dyn Fn(&str) -> bool) -> String {
    let lines: String = steps.iter().map(|step| step_html(lang, step, open)).collect();
    let [first, _, ..] = steps else { return lines };
    let status = group_status(steps);
    let key = format!("{}-all", first.key.text());
    let state = match status {
        StepStatus::Running | StepStatus::Waiting => {
            format!(
                "<span class=\"step-state\">{}</span>",
                escape_html(i18n::text(lang, status.label()))
            )
        }
        _ => String::new(),
    };
    format!(
        "<details class=\"steps\" data-status=\"{}\" data-key=\"{key}\"{}><summary>{}<span class=\"steps-line\">{}</span>{state}</summary><div class=\"step-list\">{lines}</div></details>",
        status.name(),
        if open(&key) { " open" } else { "" },
        status_icon(status),
        escape_html(&group_summary(lang, steps)),
    )
}

fn step_html(lang: Lang, step: &Step, open: &dyn Fn(&str) -> bool) -> String {
    let key = step.key.text();
    let head = format!(
        "{}<span class=\"step-line\">{}</span><span class=\"step-state\">{}</span>",
        status_icon(step.status),
        escape_html(&step.sentence(lang)),
        escape_html(i18n::text(lang, step.status.label())),
    );
    let attributes = format!(
        "class=\"step\" data-status=\"{}\" data-tool=\"{}\" data-key=\"{key}\"",
        step.status.name(),
        escape_html(&step.tool_name),
    );
    // What a tool returned is shown as it came; why a call did not run is the engine's, in the
    // page's language.
    let excerpt = step.excerpt.as_ref().map(|excerpt| match step.status {
        StepStatus::Done => excerpt.clone(),
        _ => i18n::engine_text(lang, excerpt),
    });
    match &excerpt {
        Some(excerpt) => format!(
            "<details {attributes}{}><summary title=\"{}\">{head}</summary><pre class=\"step-excerpt\">{}</pre></details>",
            if open(&key) { " open" } else { "" },
            escape_html(i18n::text(lang, Msg::CallShow)),
            escape_html(excerpt),
        ),
        None => format!("<div {attributes}>{head}</div>"),
    }
}

/// The icon of a state.
fn status_icon(status: StepStatus) -> String {
    let icon = match status {
        StepStatus::Running => Icon::Running,
        StepStatus::Waiting => Icon::Waiting,
        StepStatus::Done => Icon::Check,
        StepStatus::Failed => Icon::Failed,
        StepStatus::Declined => Icon::Declined,
        StepStatus::Denied => Icon::Denied,
        StepStatus::NotRun => Icon::NotRun,
        StepStatus::Unknown => Icon::MayHaveRun,
    };
    format!(
        "<svg class=\"icon step-icon\" aria-hidden=\"true\" focusable=\"false\" data-icon=\"{}\"><use href=\"{}\"></use></svg>",
        icon.name(),
        icon.href()
    )
}

/// Whether a turn's error is fixed in the settings (the key, the address, the model, the
/// connection itself), so its card offers them.
pub fn error_needs_settings(
    code: ErrorCode,
    kind: Option<ProviderErrorKind>,
    details: Option<&ProviderDetails>,
) -> bool {
    let reason = details.and_then(|d| d.reason.as_deref());
    code == ErrorCode::NotConfigured
        || kind == Some(ProviderErrorKind::Auth)
        || matches!(
            reason,
            Some(
                "invalid_key"
                    | "permission_denied"
                    | "quota_exceeded"
                    | "endpoint_not_found"
                    | "model_not_found"
                    | "response_format"
                    | "unreachable"
                    | "connection_unavailable"
            )
        )
}

/// The provider's details of an error, labelled, for its card's "Details": what the message
/// does not say already.
pub fn error_details(message: &str, details: Option<&ProviderDetails>) -> Vec<(Msg, String)> {
    let Some(details) = details else { return Vec::new() };
    let mut rows = Vec::new();
    if let Some(status) = details.status {
        rows.push((Msg::ErrorStatus, status.to_string()));
    }
    if let Some(reason) = &details.reason {
        rows.push((Msg::ErrorReason, reason.clone()));
    }
    if let Some(code) = &details.upstream_code {
        rows.push((Msg::ErrorUpstreamCode, code.clone()));
    }
    if let Some(said) =
        details.upstream_message.as_ref().filter(|said| !message.contains(said.as_str()))
    {
        rows.push((Msg::ErrorUpstreamSaid, said.clone()));
    }
    if let Some(id) = &details.request_id {
        rows.push((Msg::ErrorRequestId, id.clone()));
    }
    rows
}

/// The site of `url` as a person names it: the host (and port) of a web address, without the
/// scheme or any user name; the scheme and what follows for other addresses (`about:blank`).
pub fn site_of(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once(':')?;
    let scheme = scheme.to_ascii_lowercase();
    if matches!(scheme.as_str(), "http" | "https") {
        let rest = rest.trim_start_matches('/');
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        return (!host.is_empty()).then(|| host.to_ascii_lowercase());
    }
    (!rest.is_empty()).then(|| words(url, URL_CHARS))
}

/// `url` without its scheme (and without a lone `/` path), cut to [`URL_CHARS`].
fn short_url(url: &str) -> String {
    let Some(site) = site_of(url) else { return words(url, URL_CHARS) };
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http:") || lower.starts_with("https:")) {
        return site;
    }
    let after_scheme = url.split_once(':').map_or("", |(_, rest)| rest.trim_start_matches('/'));
    let path = after_scheme.find(['/', '?', '#']).map_or("", |at| &after_scheme[at..]);
    let path = if path == "/" { "" } else { path };
    words(&format!("{site}{path}"), URL_CHARS)
}

/// `text` on one line (whitespace runs become one space), cut to `max` characters with `…`.
fn words(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", line[..at].trim_end()),
        None => line,
    }
}

/// Seconds for a wait, as "1.5" or "2".
fn format_seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{:.1}", ms as f64 / 1000.0)
    }
}

fn text(lang: Lang, msg: Msg) -> String {
    i18n::text(lang, msg).to_owned()
}

/// `msg` in `lang` with each `{name}` replaced by its value, in one pass: a value is never read
/// for placeholders (a page may name an element `{site}`).
pub fn fill(lang: Lang, msg: Msg, args: &[(&str, &str)]) -> String {
    let template = i18n::text(lang, msg);
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], &after[close + 1..])) {
            Some((name, tail)) if args.iter().any(|(n, _)| *n == name) => {
                let value = args.iter().find(|(n, _)| *n == name).map_or("", |(_, v)| v);
                out.push_str(value);
                rest = tail;
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` with its first character in upper case (a summary starts with a part that does not).
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
#[path = "activity_tests.rs"]
mod tests;
