//! The tools the engine runs itself, over its own store: `load_tools` (adds a group of tools to
//! what the thread's model calls offer), the agent's memory (`memory_read`, `memory_write`:
//! keyed notes kept across chats in the `memory` list setting), and what `sidebar_open` opens
//! and answers (the router hands the page to a view, which only it knows).
//!
//! A call reaches here once judged, like any other; the router commits the write this returns,
//! then the result. A memory write is a keyed put, so recovery may run it again.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::OpenKind;
use panelot_protocol::engine::ViewOpenEvent;
use serde_json::Value;

use super::outbox::ToolInvocation;
use super::outbox::ToolOutcome;
use crate::settings::MEMORY;
use crate::settings::MEMORY_MAX_NOTES;
use crate::settings::MemoryNote;
use crate::settings::NotePut;
use crate::settings::put_note;
use crate::settings::remove_note;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::tools::catalog::LOAD_TOOLS;
use crate::tools::catalog::ToolGroup;

/// Characters of each note shown when the notes are listed.
const LISTED_CHARS: usize = 80;

/// What running a tool did: its outcome, and the write to commit first.
#[derive(Debug)]
pub(crate) struct Ran {
    pub(crate) outcome: ToolOutcome,
    pub(crate) unit: UnitOfWork,
}

impl Ran {
    /// An outcome with nothing to write.
    pub(crate) fn said(outcome: ToolOutcome) -> Ran {
        Ran { outcome, unit: UnitOfWork::new() }
    }
}

/// Runs one of the engine's own tools.
pub(crate) async fn run<S: Store>(
    store: &S,
    call: &ToolInvocation,
    now_ms: u64,
) -> Result<Ran, StoreError> {
    let text = |name: &str| call.params.get(name).and_then(Value::as_str).map(str::trim);
    match call.tool.as_str() {
        LOAD_TOOLS => Ok(Ran::said(load(text("group").unwrap_or_default()))),
        "memory_read" => {
            let notes = MEMORY.read(store).await?.into_items();
            Ok(Ran::said(read(&notes, text("key").filter(|k| !k.is_empty()))))
        }
        "memory_write" => {
            let mut notes = MEMORY.read(store).await?;
            let key = text("key").unwrap_or_default();
            let value = call.params.get("value").and_then(Value::as_str).unwrap_or_default();
            let outcome = write(&mut notes, key, value, now_ms);
            let mut unit = UnitOfWork::new();
            if outcome.is_ok() {
                unit.push(MEMORY.write(&notes)?);
            }
            Ok(Ran { outcome, unit })
        }
        other => {
            Ok(Ran::said(ToolOutcome::failed(format!("the engine has no tool named `{other}`"))))
        }
    }
}

fn load(name: &str) -> ToolOutcome {
    let Some(group) = ToolGroup::parse(name) else {
        return ToolOutcome::failed(format!("there is no tool group named `{name}`"));
    };
    let names: Vec<&str> = group.tools().map(|tool| tool.name).collect();
    ToolOutcome::done(format!(
        "Loaded {}: {}. They are offered from your next step on in this chat.",
        group.name(),
        names.join(", ")
    ))
}

fn read(notes: &[MemoryNote], key: Option<&str>) -> ToolOutcome {
    if let Some(key) = key {
        if let Some(note) = notes.iter().find(|note| note.key == key) {
            return ToolOutcome::done(note.value.clone());
        }
        return ToolOutcome::done(format!("No note is saved under \"{key}\". {}", list(notes)));
    }
    ToolOutcome::done(list(notes))
}

fn list(notes: &[MemoryNote]) -> String {
    if notes.is_empty() {
        return "The memory has no notes.".to_owned();
    }
    let mut text = format!("{} notes:", notes.len());
    for note in notes {
        let mut head: String = note.value.chars().take(LISTED_CHARS).collect();
        if head.len() < note.value.len() {
            head.push('…');
        }
        text.push_str(&format!("\n- {}: {}", note.key, head.replace('\n', " ")));
    }
    text
}

fn write(notes: &mut Vec<MemoryNote>, key: &str, value: &str, now_ms: u64) -> ToolOutcome {
    if key.is_empty() {
        return ToolOutcome::failed("a note needs a key");
    }
    if value.is_empty() {
        return ToolOutcome::done(if remove_note(notes, key) {
            format!("Deleted the note \"{key}\".")
        } else {
            format!("No note is saved under \"{key}\".")
        });
    }
    match put_note(notes, key, value, now_ms) {
        NotePut::Added => ToolOutcome::done(format!("Saved the note \"{key}\".")),
        NotePut::Replaced => ToolOutcome::done(format!("Replaced the note \"{key}\".")),
        NotePut::Full => ToolOutcome::failed(format!(
            "the memory is full ({MEMORY_MAX_NOTES} notes): replace or delete one first"
        )),
    }
}

/// What `sidebar_open` opens: a web page, with its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenTarget {
    pub(crate) url: String,
    pub(crate) title: String,
}

/// The page `sidebar_open`'s parameters name, or why it cannot be opened (for the model). An
/// `http://` or `https://` URL in any case is a page; a Windows drive path (`C:\…`, `C:/…`) or
/// any other path is a local file or folder, which needs the native host; any other scheme is
/// refused.
pub(crate) fn open_target(params: &Value) -> Result<OpenTarget, String> {
    let target = params.get("target").and_then(Value::as_str).map(str::trim).unwrap_or_default();
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let origin = panelot_protocol::Origin::parse(target)
            .map_err(|err| format!("`{target}` is not a URL that can be opened: {err}"))?;
        let title = params
            .get("title")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|title| !title.is_empty())
            .map_or_else(|| origin.host.clone(), str::to_owned);
        return Ok(OpenTarget { url: target.to_owned(), title });
    }
    let bytes = target.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    let scheme = target.split_once(':').map(|(scheme, _)| scheme).filter(|scheme| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    match scheme {
        Some(scheme) if !drive => Err(format!(
            "`{scheme}:` targets are not opened; sidebar_open opens http:// and https:// URLs"
        )),
        _ => Err(format!(
            "`{target}` is a local file or folder; opening those needs Panelot's native host, \
             which is not installed. Open an http(s) URL instead"
        )),
    }
}

/// The event that opens `url` beside a view of `thread`.
pub(crate) fn view_open(thread: &ThreadId, url: String, title: String) -> AgentEvent {
    AgentEvent::ViewOpen(ViewOpenEvent {
        thread_id: thread.clone(),
        kind: OpenKind::Url,
        target: url,
        title,
    })
}

/// `sidebar_open`'s result: `{kind, target, title, delivered}`.
pub(crate) fn opened(open: &OpenTarget, delivered: bool) -> ToolOutcome {
    let result = serde_json::json!({
        "kind": "url",
        "target": open.url,
        "title": open.title,
        "delivered": delivered,
    });
    ToolOutcome::done(result.to_string())
}

/// The groups a thread loaded: each `load_tools` call on `path` whose result says it worked.
pub(crate) fn loaded_groups(path: &[NodeRecord]) -> Vec<ToolGroup> {
    let mut groups = Vec::new();
    for (at, record) in path.iter().enumerate() {
        let NodeBody::ToolCall { tool_name, call_id, params, .. } = &record.body else { continue };
        if tool_name != LOAD_TOOLS {
            continue;
        }
        let worked = path[at..].iter().any(|later| {
            matches!(&later.body, NodeBody::ToolResult { call_id: id, ok: true, .. } if id == call_id)
        });
        let group = params.get("group").and_then(Value::as_str).and_then(ToolGroup::parse);
        if let (true, Some(group)) = (worked, group)
            && !groups.contains(&group)
        {
            groups.push(group);
        }
    }
    groups
}

#[cfg(test)]
#[path = "builtins_tests.rs"]
mod tests;
