//! Artifacts in the transcript: an `artifact_create` call that worked is a document the person
//! can open and download; its card reads the call's parameters (the call is the artifact; see
//! the engine's `artifacts`). The viewer shows one version: the one a card names by its item,
//! or, for a name alone (`sidebar_open`, a chat page opened on `?artifact=`), the newest of that
//! name in the thread.

use panelot_protocol::artifact::ArtifactKind;
use panelot_protocol::artifact::params;
use panelot_protocol::artifact::percent_encode;
use panelot_protocol::engine::CallOutcome;

use super::thread_view::Entry;
use super::thread_view::EntryBody;
use super::thread_view::ThreadView;

/// The tool whose calls are artifacts.
pub const ARTIFACT_CREATE: &str = "artifact_create";

/// One saved version of an artifact, as its card and viewer show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// The call's item: names this version.
    pub item_id: String,
    /// The file's name.
    pub filename: String,
    /// The MIME type the model gave, if any.
    pub mime: Option<String>,
    /// The text.
    pub content: String,
    /// How it is shown.
    pub kind: ArtifactKind,
}

impl Artifact {
    /// Its size in UTF-8 bytes.
    pub fn size(&self) -> usize {
        self.content.len()
    }
}

/// Which artifact the viewer shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The file's name.
    pub name: String,
    /// The version's item, when a card named it; else the newest of the name.
    pub item_id: Option<String>,
}

/// The artifact an entry saved: an `artifact_create` call whose result worked.
pub fn of_entry(entry: &Entry) -> Option<Artifact> {
    let EntryBody::Tool { item_id, tool_name, params: Some(args), result: Some(result), .. } =
        &entry.body
    else {
        return None;
    };
    if tool_name != ARTIFACT_CREATE || result.outcome != CallOutcome::Done {
        return None;
    }
    let text = |name: &str| args.get(name).and_then(serde_json::Value::as_str);
    let filename = text(params::FILENAME)?.to_owned();
    let mime = text(params::MIME).map(str::to_owned);
    Some(Artifact {
        item_id: item_id.to_string(),
        kind: ArtifactKind::of(&filename, mime.as_deref()),
        content: text(params::CONTENT).unwrap_or_default().to_owned(),
        filename,
        mime,
    })
}

/// Whether `entry` saved an artifact (it is drawn as a card, not as a step).
pub fn is_artifact(entry: &Entry) -> bool {
    of_entry(entry).is_some()
}

/// The artifact `shown` names in `view`: the version its item names, else the newest of its
/// name.
pub fn find(view: &ThreadView, shown: &Shown) -> Option<Artifact> {
    let all = view.artifacts();
    match &shown.item_id {
        Some(item) => all.into_iter().find(|a| &a.item_id == item),
        None => all.into_iter().rev().find(|a| a.filename == shown.name),
    }
}

/// A size as a person reads it: bytes, KB or MB (of 1,000).
pub fn size_text(bytes: usize) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1_000.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_000_000.0),
    }
}

/// The chat page's address showing `shown` of `thread`: `chat.html?thread=…&artifact=…[&item=…]`.
pub fn chat_url(thread: &str, shown: &Shown) -> String {
    let mut url = format!(
        "chat.html?thread={}&artifact={}",
        percent_encode(thread),
        percent_encode(&shown.name)
    );
    if let Some(item) = &shown.item_id {
        url.push_str(&format!("&item={}", percent_encode(item)));
    }
    url
}

/// What [`chat_url`] names, from its query's `artifact` and `item` values.
pub fn from_query(artifact: Option<String>, item: Option<String>) -> Option<Shown> {
    let name = artifact.filter(|name| !name.is_empty())?;
    Some(Shown { name, item_id: item.filter(|item| !item.is_empty()) })
}

#[cfg(test)]
#[path = "artifacts_tests.rs"]
mod tests;
