//! The tools the engine runs itself, over its own store: `load_tools` (adds a group of tools to
//! what the thread's model calls offer), the agent's memory (`memory_read`, `memory_write`:
//! keyed notes kept across chats in the `memory` list setting), `artifact_create` (see
//! `artifacts`), and what `sidebar_open` opens and answers (the router hands the page or
//! artifact to a view, which only it knows).
//!
//! A call reaches here once judged, like any other; the router commits the write this returns,
//! then the result. A memory write is a keyed put, so recovery may run it again.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::OpenKind;
use panelot_protocol::engine::ViewOpenEvent;
use serde_json::Value;

use super::artifacts;
use super::outbox::ToolInvocation;
use super::outbox::ToolOutcome;
use super::reads;
use crate::settings::MEMORY;
use crate::settings::MEMORY_MAX_NOTES;
use crate::settings::MemoryNote;
use crate::settings::NotePut;
use crate::settings::put_note;
use crate::settings::remove_note;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::tools::catalog;
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
        catalog::ARTIFACT_CREATE => {
            let path = match reads::thread_state(store, &call.thread_id).await? {
                Some(state) => reads::path_to(store, &state, state.meta.leaf_id.as_ref()).await?,
                None => Vec::new(),
            };
            Ok(Ran::said(artifacts::create(&path, &call.params)))
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

/// Why a call of one of the engine's tools (or of `download`, whose artifact the engine
/// finds) cannot work, found from its parameters alone, before it is judged.
pub(crate) fn check(tool: &str, params: &Value) -> Result<(), String> {
    match tool {
        catalog::SIDEBAR_OPEN => open_target(params).map(|_| ()),
        _ => artifacts::check(tool, params),
    }
}

/// What `sidebar_open` opens: a web page or an artifact of the thread, with its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenTarget {
    pub(crate) kind: OpenKind,
    /// The URL, or the artifact's filename.
    pub(crate) target: String,
    pub(crate) title: String,
}

/// What `sidebar_open`'s parameters name, or why it cannot be opened (for the model). An
/// `http://` or `https://` URL in any case is a page; `artifact:<filename>` (scheme in any
/// case) is an artifact of the thread, shown in the chat page's viewer (whether the thread has
/// it is checked when the call runs); a Windows drive path (`C:\…`, `C:/…`) or any other path
/// is a local file or folder, which needs the native host; any other scheme is refused.
pub(crate) fn open_target(params: &Value) -> Result<OpenTarget, String> {
    let target = params.get("target").and_then(Value::as_str).map(str::trim).unwrap_or_default();
    let title =
        params.get("title").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let lower = target.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let origin = panelot_protocol::Origin::parse(target)
            .map_err(|err| format!("`{target}` is not a URL that can be opened: {err}"))?;
        let title = title.map_or_else(|| origin.host.clone(), str::to_owned);
        return Ok(OpenTarget { kind: OpenKind::Url, target: target.to_owned(), title });
    }
    if lower.starts_with(catalog::ARTIFACT_SCHEME) {
        let name = target[catalog::ARTIFACT_SCHEME.len()..].trim();
        if let Some(problem) = panelot_protocol::artifact::filename_problem(name) {
            return Err(format!("`{target}` names no artifact: {problem}"));
        }
        let title = title.unwrap_or(name).to_owned();
        return Ok(OpenTarget { kind: OpenKind::Artifact, target: name.to_owned(), title });
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
            "`{scheme}:` targets are not opened; sidebar_open opens http:// and https:// URLs \
             and artifact:<filename>"
        )),
        _ => Err(format!(
            "`{target}` is a local file or folder; opening those needs Panelot's native host, \
             which is not installed. Open an http(s) URL instead, or an artifact of this chat \
             as artifact:<filename>"
        )),
    }
}

/// The event that opens `target` (a URL or an artifact's filename) beside a view of `thread`.
pub(crate) fn view_open(
    thread: &ThreadId,
    kind: OpenKind,
    target: String,
    title: String,
) -> AgentEvent {
    AgentEvent::ViewOpen(ViewOpenEvent { thread_id: thread.clone(), kind, target, title })
}

/// `sidebar_open`'s result: `{kind, target, title, delivered}`.
pub(crate) fn opened(open: &OpenTarget, delivered: bool) -> ToolOutcome {
    let kind = match open.kind {
        OpenKind::Url => "url",
        OpenKind::Artifact => "artifact",
    };
    let result = serde_json::json!({
        "kind": kind,
        "target": open.target,
        "title": open.title,
        "delivered": delivered,
    });
    ToolOutcome::done(result.to_string())
}

/// The groups a thread loaded: each `load_tools` call on `path` whose result says it worked.
pub(crate) fn loaded_groups(path: &[NodeRecord]) -> Vec<ToolGroup> {
    let mut groups = Vec::new();
    for params in reads::worked_calls(path, LOAD_TOOLS) {
        let group = params.get("group").and_then(Value::as_str).and_then(ToolGroup::parse);
        if let Some(group) = group
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
