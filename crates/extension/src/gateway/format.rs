//! What the model reads and what the UI card gets for each browser tool result.
//!
//! Pure formatting over protocol types and plain tab facts, tested natively. Every result names
//! its tab first (`[tabId=N]`) so the model can keep acting on the same tab; page text goes to
//! the model as is (the engine fences it as untrusted), action evidence in a line or two.

use panelot_core::engine::FailureCause;
use panelot_core::engine::ToolOutcome;
use panelot_core::engine::ToolStatus;
use panelot_core::sort::sort_by_u64_key;
use panelot_protocol::content::ActionEvidence;
use panelot_protocol::content::ActionFailure;
use panelot_protocol::content::ActionFailureCode;
use panelot_protocol::content::DIALOGS_MAX;
use panelot_protocol::content::DialogKind;
use panelot_protocol::content::EffectState;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::PageDialog;
use panelot_protocol::to_value;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;

/// A tab as `chrome.tabs` describes it (the fields the gateway reads).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TabInfo {
    /// `chrome.tabs` id (absent for some devtools tabs, which are then skipped).
    pub id: Option<u32>,
    /// Its window.
    pub window_id: u32,
    /// Whether it is the selected tab of its window.
    #[serde(default)]
    pub active: bool,
    /// Committed URL (absent without host permission or `tabs`).
    #[serde(default)]
    pub url: Option<String>,
    /// URL being loaded.
    #[serde(default)]
    pub pending_url: Option<String>,
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// `loading` or `complete`.
    #[serde(default)]
    pub status: Option<String>,
    /// The tab whose page opened this one (a link with a target, `window.open`).
    #[serde(default)]
    pub opener_tab_id: Option<u32>,
}

impl TabInfo {
    /// The URL the tab shows or is loading.
    pub(crate) fn shown_url(&self) -> &str {
        self.url.as_deref().or(self.pending_url.as_deref()).unwrap_or("")
    }

    /// One line for the model: `[tabId=3] "Title" https://…`.
    pub(crate) fn line(&self) -> String {
        let title = self.title.as_deref().unwrap_or("").replace('"', "'");
        format!("[tabId={}] \"{title}\" {}", self.id.unwrap_or(0), self.shown_url())
    }

    /// Details for the UI card.
    pub(crate) fn details(&self) -> Value {
        json!({"tabId": self.id, "windowId": self.window_id, "url": self.shown_url(),
            "title": self.title})
    }
}

/// `tabs_list`: one line per tab, grouped by window, marking the tab the user is viewing (the
/// active tab of the last focused window).
pub(crate) fn tabs_list(tabs: &[TabInfo], focused_window: Option<u32>) -> ToolOutcome {
    let mut content = String::new();
    let mut window = None;
    for tab in tabs.iter().filter(|tab| tab.id.is_some()) {
        if window != Some(tab.window_id) {
            window = Some(tab.window_id);
            let focused = if focused_window == Some(tab.window_id) { " (focused)" } else { "" };
            content.push_str(&format!("window {}{focused}:\n", tab.window_id));
        }
        content.push_str("  ");
        content.push_str(&tab.line());
        if tab.active && focused_window == Some(tab.window_id) {
            content.push_str(" (the user is viewing it)");
        } else if tab.active {
            content.push_str(" (active in its window)");
        }
        content.push('\n');
    }
    if content.is_empty() {
        content.push_str("no tabs are open");
    }
    let details: Vec<Value> = tabs.iter().map(TabInfo::details).collect();
    ToolOutcome::done(content.trim_end()).with_details(json!(details))
}

/// A page result for the model and the card.
pub(crate) fn page_result(tab_id: u32, result: &ExecutorResult) -> ToolOutcome {
    let content = match result {
        ExecutorResult::Snapshot(snapshot) => format!("[tabId={tab_id}]\n{}", snapshot.text),
        ExecutorResult::Action(action) => {
            let mut text = format!("[tabId={tab_id}] {}", evidence_line(&action.evidence));
            push_diff(&mut text, action.snapshot_diff.as_deref());
            text
        }
        ExecutorResult::Extract(extract) => {
            let end = extract.from_char.saturating_add(extract.markdown.chars().count() as u32);
            let more = match extract.next_char {
                Some(next) => format!("; more from fromChar={next}"),
                None => String::new(),
            };
            format!(
                "[tabId={tab_id}] characters {}–{end} of {}{more}\n{}",
                extract.from_char, extract.total_chars, extract.markdown
            )
        }
        ExecutorResult::Find(find) => {
            let mut text = match (find.total, find.hits.len()) {
                (0, _) => format!("[tabId={tab_id}] no matches"),
                (total, shown) if shown < total as usize => {
                    format!("[tabId={tab_id}] {total} matches, first {shown}:")
                }
                (total, _) => format!("[tabId={tab_id}] {total} matches:"),
            };
            for hit in &find.hits {
                text.push('\n');
                text.push_str(&hit.line);
            }
            text
        }
        ExecutorResult::Selection(selection) if selection.text.is_empty() => {
            format!("[tabId={tab_id}] nothing is selected on {}", selection.url)
        }
        ExecutorResult::Selection(selection) => {
            format!("[tabId={tab_id}] selected on {}:\n{}", selection.url, selection.text)
        }
        ExecutorResult::Batch(batch) => {
            let n_done = batch.completed;
            let mut text = match (batch.stopped_before, batch.stop_reason.as_deref()) {
                (Some(idx), reason) => format!(
                    "[tabId={tab_id}] {n_done} actions done, stopped before action {}: {}",
                    idx + 1,
                    reason.unwrap_or("the page changed")
                ),
                (None, _) => format!("[tabId={tab_id}] all {n_done} actions done"),
            };
            for (idx, evidence) in batch.evidence.iter().enumerate() {
                text.push_str(&format!("\n{}. {}", idx + 1, evidence_line(evidence)));
            }
            push_diff(&mut text, batch.snapshot_diff.as_deref());
            text
        }
        // Not offered to the model (debugger and engine helpers), but a result is still a
        // result.
        ExecutorResult::Rect(_)
        | ExecutorResult::RefStatus(_)
        | ExecutorResult::Target(_)
        | ExecutorResult::Highlight(_)
        | ExecutorResult::Labels(_) => {
            format!("[tabId={tab_id}] {}", serde_json::to_string(result).unwrap_or_default())
        }
    };
    ToolOutcome::done(content).with_details(page_details(tab_id, result))
}

/// An executor failure: the code first (the model's tools descriptions refer to codes), the
/// executor's message, and what to do next where the code makes that plain.
pub(crate) fn page_failure(tab_id: u32, failure: &ActionFailure) -> ToolOutcome {
    let code = code_name(failure.code);
    let hint = match failure.code {
        ActionFailureCode::StaleRef | ActionFailureCode::Detached => {
            " Take a new read_page and use its refs."
        }
        ActionFailureCode::Occluded | ActionFailureCode::NotVisible => {
            " Scroll to it or close what covers it, then try again."
        }
        ActionFailureCode::NotStable | ActionFailureCode::Timeout => " Try again.",
        ActionFailureCode::NavigationUncertain => {
            " The page may have changed: take a new read_page before doing it again."
        }
        ActionFailureCode::TargetChanged => {
            " It did not act. Take a new read_page and decide again on what the tab shows now."
        }
        ActionFailureCode::Disabled
        | ActionFailureCode::NotEditable
        | ActionFailureCode::AmbiguousTarget
        | ActionFailureCode::UnsupportedFrame
        | ActionFailureCode::L1NotEffective
        | ActionFailureCode::SafetyBoundaryUnavailable
        | ActionFailureCode::Aborted
        | ActionFailureCode::InvalidTarget
        | ActionFailureCode::Unknown => "",
    };
    let said = failure.message.trim_end_matches('.');
    let mut message = format!("[tabId={tab_id}] {code}: {said}.{hint}");
    if let Some(details) = &failure.details
        && let ActionFailureCode::InvalidTarget | ActionFailureCode::Occluded = failure.code
    {
        // The options of a select, or what covers the element: the model needs them to retry.
        message.push_str(&format!("\n{details}"));
    }
    let cause = match failure.code {
        ActionFailureCode::TargetChanged => FailureCause::TargetChanged,
        ActionFailureCode::L1NotEffective => FailureCause::NotEffective,
        _ => FailureCause::Other,
    };
    ToolOutcome::failed_because(message, cause)
        .with_details(json!({"tabId": tab_id, "failure": to_value(failure).unwrap_or_default()}))
}

/// The refusal of a write whose page could not get the dialog guard: a dialog it opened would
/// block the page and the call.
pub(crate) fn dialog_guard_failure(tab_id: u32, reason: &impl std::fmt::Display) -> ToolOutcome {
    let code = code_name(ActionFailureCode::SafetyBoundaryUnavailable);
    ToolOutcome::failed(format!(
        "[tabId={tab_id}] {code}: {reason}. It did not act. click_trusted and type_trusted \
         answer dialogs through the debugger."
    ))
    .with_details(json!({"tabId": tab_id, "failure": {"code": code}}))
}

/// What the model reads of a dialog the page opened during an action, and Panelot's answer.
pub(crate) fn dialog_line(dialog: &PageDialog) -> String {
    let said = serde_json::to_string(&dialog.message).unwrap_or_default();
    match dialog.kind {
        DialogKind::Alert => format!("The page showed alert({said}); Panelot answered OK."),
        DialogKind::Confirm => format!("The page showed confirm({said}); Panelot answered Cancel."),
        DialogKind::Prompt => {
            format!("The page showed prompt({said}); Panelot answered Cancel (no text).")
        }
        DialogKind::Beforeunload => "The page asked to confirm leaving it (beforeunload); \
             Panelot let it leave without asking."
            .to_owned(),
    }
}

/// A failure outside the executor (no tab, injection refused, the page went away).
pub(crate) fn failure(message: impl std::fmt::Display) -> ToolOutcome {
    ToolOutcome::failed(message.to_string())
}

/// The refusal of a call whose tab no longer shows the page it was judged for.
pub(crate) fn target_changed(tab_id: u32, judged: &str, now: &str) -> ToolOutcome {
    ToolOutcome::failed_because(
        format!(
            "[tabId={tab_id}] target_changed: the call was judged for {judged}, and the tab now \
             shows {now}. It did not act. Take a new read_page and decide again."
        ),
        FailureCause::TargetChanged,
    )
    .with_details(json!({"tabId": tab_id, "judged": judged, "now": now}))
}

/// Adds `note` to what the model reads of `outcome`.
fn append_text(outcome: &mut ToolOutcome, note: &str) {
    match &mut outcome.status {
        ToolStatus::Done { content } => content.push_str(note),
        ToolStatus::Failed { message, .. } => message.push_str(note),
    }
}

/// `scheme://host[:port]` of an http(s) URL: what host permissions are granted for. Other
/// schemes (extension pages, `chrome:`, `file:`) have none to ask for.
pub(crate) fn web_origin(url: &str) -> Option<String> {
    let origin = panelot_protocol::Origin::parse(url).ok()?;
    origin.is_web().then(|| origin.to_string())
}

/// The tabs in `after` that `opener` opened since `before` was listed, oldest first.
pub(crate) fn opened_by(before: &[u32], after: &[TabInfo], opener: u32) -> Vec<TabInfo> {
    let mut opened: Vec<TabInfo> = after
        .iter()
        .filter(|tab| tab.opener_tab_id == Some(opener))
        .filter(|tab| tab.id.is_some_and(|id| !before.contains(&id)))
        .cloned()
        .collect();
    // Tabs without an id first, as `Option`'s order puts `None` first.
    sort_by_u64_key(&mut opened, |tab| tab.id.map_or(0, |id| u64::from(id) + 1));
    opened
}

/// Tells the model (and the card) which tabs an action opened; page tools now go to the last.
pub(crate) fn with_opened_tabs(mut outcome: ToolOutcome, opened: &[TabInfo]) -> ToolOutcome {
    let Some(last) = opened.last() else {
        return outcome;
    };
    let lines: String =
        opened.iter().map(|tab| format!("\n{} opened by this action", tab.line())).collect();
    let note = format!("{lines}; page tools now use [tabId={}]", last.id.unwrap_or(0));
    let tabs: Vec<Value> = opened.iter().map(TabInfo::details).collect();
    let add = |details: Option<Value>| match details {
        Some(Value::Object(mut map)) => {
            map.insert("openedTabs".to_owned(), Value::Array(tabs.clone()));
            Some(Value::Object(map))
        }
        _ => Some(json!({"openedTabs": tabs})),
    };
    append_text(&mut outcome, &note);
    outcome.details = add(outcome.details.take());
    match last.id {
        Some(tab) => outcome.with_opened_tab(tab),
        None => outcome,
    }
}

/// Adds how long the page call took (injection, executor and messaging) to the card's details.
pub(crate) fn with_elapsed(mut outcome: ToolOutcome, elapsed_ms: u64) -> ToolOutcome {
    outcome.details = match outcome.details.take() {
        Some(Value::Object(mut map)) => {
            map.insert("elapsedMs".to_owned(), elapsed_ms.into());
            Some(Value::Object(map))
        }
        None => Some(json!({"elapsedMs": elapsed_ms})),
        Some(other) => Some(other),
    };
    outcome
}

/// The wire name of a failure code (`stale_ref`).
pub(crate) fn code_name(code: ActionFailureCode) -> String {
    panelot_protocol::to_value(&code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn evidence_line(evidence: &ActionEvidence) -> String {
    // `dispatched` only says the events went out; what the page did is in `observed` and in the
    // snapshot diff that follows the line, so the line does not claim "no effect" by itself.
    let effect = match evidence.effect {
        EffectState::Dispatched => "dispatched",
        EffectState::Observed => "done, change observed",
        EffectState::Verified => "done, verified",
    };
    let mut line = effect.to_owned();
    if !evidence.observed.is_empty() {
        line.push_str(&format!(": {}", evidence.observed.join("; ")));
    }
    if evidence.url_after != evidence.url_before {
        line.push_str(&format!(". URL is now {}", evidence.url_after));
    }
    if !evidence.settled {
        line.push_str(". The page had not settled yet; it may still be loading");
    }
    for dialog in &evidence.dialogs {
        line.push('\n');
        line.push_str(&dialog_line(dialog));
    }
    if evidence.dialogs_stopped {
        line.push_str(&format!(
            "\nThe page kept opening dialogs: after {DIALOGS_MAX}, Panelot made the next one throw \
             an error in the page to end the loop."
        ));
    }
    line
}

fn push_diff(text: &mut String, diff: Option<&str>) {
    match diff {
        Some(diff) if !diff.trim().is_empty() => {
            text.push_str("\nsnapshot changes:\n");
            text.push_str(diff);
        }
        Some(_) => text.push_str("\nthe snapshot did not change"),
        None => {}
    }
}

/// The card's details: the facts without the bulk text the model already got.
fn page_details(tab_id: u32, result: &ExecutorResult) -> Value {
    match result {
        ExecutorResult::Snapshot(s) => json!({"tabId": tab_id, "shape": "snapshot",
            "snapshotId": s.snapshot_id, "url": s.url, "title": s.title, "generation": s.generation,
            "refCount": s.ref_count, "foldedRegions": s.folded_regions}),
        ExecutorResult::Action(a) => json!({"tabId": tab_id, "shape": "action",
            "evidence": to_value(&a.evidence).unwrap_or_default(), "snapshotDiff": a.snapshot_diff}),
        ExecutorResult::Batch(b) => {
            json!({"tabId": tab_id, "shape": "batch", "batch": to_value(b).unwrap_or_default()})
        }
        ExecutorResult::Extract(e) => json!({"tabId": tab_id, "shape": "extract",
            "fromChar": e.from_char, "nextChar": e.next_char, "totalChars": e.total_chars}),
        ExecutorResult::Find(f) => json!({"tabId": tab_id, "shape": "find", "total": f.total}),
        ExecutorResult::Selection(s) => json!({"tabId": tab_id, "shape": "selection",
            "url": s.url, "chars": s.text.chars().count()}),
        ExecutorResult::Rect(_)
        | ExecutorResult::RefStatus(_)
        | ExecutorResult::Target(_)
        | ExecutorResult::Highlight(_)
        | ExecutorResult::Labels(_) => {
            json!({"tabId": tab_id, "result": to_value(result).unwrap_or_default()})
        }
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
