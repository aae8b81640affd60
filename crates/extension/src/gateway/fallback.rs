//! What `read_page` gives when the page's DOM gives nothing readable (no element to act on and
//! almost no text: a canvas app, a page whose scripts were blocked, an empty shell): the
//! accessibility tree from the debugger (`read_page_deep`), and when that is empty too, a
//! screenshot of the viewport if the model reads images; the result says which it is. Only when the engine lets the call
//! use the debugger (the turn enables L2 and the page is not off limits); otherwise the snapshot
//! says what the debugger could have done.
//!
//! Each step runs once per call: calling `read_page` again on the same page gives the same
//! answer, and nothing here retries.

use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_core::tools::catalog::DebuggerTool;
use panelot_core::tools::catalog::SCREENSHOT;
use panelot_core::tools::catalog::TAB_ID_PARAM;
use serde_json::Value;
use serde_json::json;

use super::debugger;

/// Said before the accessibility tree.
const FROM_DEEP: &str = "# The page's DOM gave almost nothing readable; this is the accessibility tree from the debugger (its d refs act with click_trusted, type_trusted and press_key_trusted).";
/// Said before the screenshot.
const FROM_SHOT: &str = "# The page's DOM and its accessibility tree gave almost nothing readable; this is a screenshot of the viewport (click_xy clicks at its points). A model that cannot see images should ask the user what the page shows.";
/// Said under a snapshot when neither tree had anything and the model cannot see a screenshot.
const NO_VISION: &str = "# The page's DOM and its accessibility tree gave nothing readable (it may draw on a canvas). A screenshot could show it, but this model does not read images; tell the user, or ask them to switch to a model that does.";

/// Said under a snapshot when the debugger may not be used.
const NO_DEBUGGER: &str = "# The page's DOM gave nothing readable (no element to act on, almost no text): it may draw on a canvas or need scripts that did not run. The debugger could read its accessibility tree or take a screenshot, but this turn does not enable it (or the page is off limits); tell the user if you need it.";

/// How the executor says a page has no node to snapshot at all.
const EMPTY_WALK: &str = "nothing visible to snapshot";

/// Whether a whole page's `read_page` outcome has nothing readable: a snapshot without a ref
/// and with almost no words, or no snapshot because the walk found no node.
pub(crate) fn applies(outcome: &ToolOutcome) -> bool {
    let text = outcome.text();
    if outcome.is_ok() { debugger::snapshot_unusable(&text) } else { text.contains(EMPTY_WALK) }
}

/// The answer of a `read_page` whose snapshot (`snapshot`) had nothing readable.
pub(crate) async fn read(
    call: &ToolInvocation,
    snapshot: ToolOutcome,
    abort: &AbortSignal,
) -> ToolOutcome {
    if !call.debugger {
        let text = format!("{}\n{NO_DEBUGGER}", snapshot.text().trim_end());
        return replaced(snapshot, text, "dom");
    }
    let mut params = json!({});
    if let Some(tab) = call.params.get(TAB_ID_PARAM) {
        params[TAB_ID_PARAM] = tab.clone();
    }
    let mut deep_params = params.clone();
    if let Some(budget) = call.params.get("maxTokens") {
        deep_params["maxTokens"] = budget.clone();
    }
    let deep_call =
        ToolInvocation { tool: "read_page_deep".to_owned(), params: deep_params, ..call.clone() };
    let deep = debugger::run(&deep_call, DebuggerTool::ReadPageDeep, abort).await;
    let usable = deep.details.as_ref().and_then(|d| d.get("usable")).and_then(Value::as_bool);
    // What the DOM did give stays first: a sparse page (a heading, a line of text) is still
    // what the model reads, with the debugger's view added, never in its place.
    let seen = dom_text(&snapshot);
    if deep.is_ok() && usable == Some(true) {
        let text = format!("{seen}{FROM_DEEP}\n{}", deep.text());
        return replaced(deep, text, "deep");
    }
    if !call.vision {
        // A screenshot would reach this model only as "image not sent": say so instead of
        // spending a capture on it.
        let text = format!("{}\n{NO_VISION}", snapshot.text().trim_end());
        return replaced(snapshot, text, "dom");
    }
    let shot_call = ToolInvocation { tool: SCREENSHOT.to_owned(), params, ..call.clone() };
    let shot = debugger::run(&shot_call, DebuggerTool::Screenshot, abort).await;
    if shot.is_ok() {
        let text = format!("{seen}{FROM_SHOT}\n{}", shot.text());
        // The snapshot's page stays the one the tab's refs belong to.
        let mut shot = replaced(shot, text, "screenshot");
        shot.page = snapshot.page;
        return shot;
    }
    let text = format!(
        "{}\n# The page's DOM gave nothing readable, and neither did the debugger: {}",
        snapshot.text().trim_end(),
        shot.text()
    );
    replaced(snapshot, text, "dom")
}

/// The DOM snapshot's text when it has any, ending in a line break; empty when the walk found
/// no node.
fn dom_text(snapshot: &ToolOutcome) -> String {
    if !snapshot.is_ok() {
        return String::new();
    }
    let text = snapshot.text();
    let text = text.trim_end();
    if text.lines().all(|line| line.starts_with('#')) { String::new() } else { format!("{text}\n") }
}

/// `outcome` with its text for the model replaced and its source named in the details.
fn replaced(outcome: ToolOutcome, text: String, source: &str) -> ToolOutcome {
    let mut details = outcome.details.clone().unwrap_or_else(|| json!({}));
    details["readFrom"] = json!(source);
    let page = outcome.page.clone();
    let fresh = if outcome.is_ok() { ToolOutcome::done(text) } else { ToolOutcome::failed(text) };
    let mut fresh = fresh.with_details(details);
    fresh.page = page;
    fresh
}
