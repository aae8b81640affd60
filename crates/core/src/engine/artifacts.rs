//! Artifacts: documents the agent saves in a thread with `artifact_create` (Markdown, HTML,
//! code, CSV, JSON), which the user opens from a card in the chat and downloads.
//!
//! An artifact is its call: the stored tool-call node's parameters hold the filename, type and
//! content, and a result that worked makes it real. So it is stored, branched, exported and
//! deleted with the thread and needs no record of its own; every view draws its card from the
//! transcript it already has. Saving a name that the thread's branch already holds makes a new
//! version: lookups by name (`download`, `sidebar_open` of `artifact:<name>`) take the newest
//! on the branch, and each card keeps showing the version it saved.
//!
//! `download` of an artifact runs in the host like any download; the engine hands it the
//! content (added to the parameters of the dispatched call, never stored) once the call is
//! judged and dispatched.

use panelot_protocol::artifact::ArtifactKind;
use panelot_protocol::artifact::download_mime;
use panelot_protocol::artifact::filename_problem;
use panelot_protocol::artifact::handed;
use panelot_protocol::artifact::params;
use serde_json::Value;

use super::decision::EffectRequest;
use super::decision::FollowUp;
use super::decision::ResultBody;
use super::outbox::ToolInvocation;
use super::outbox::ToolOutcome;
use super::reads;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::tools::catalog;

/// One saved version of an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    pub(crate) filename: String,
    pub(crate) mime: Option<String>,
    pub(crate) content: String,
}

/// The artifacts saved on `path` (calls whose result worked), oldest first.
pub(crate) fn saved(path: &[NodeRecord]) -> Vec<Artifact> {
    let mut found = Vec::new();
    for args in reads::worked_calls(path, catalog::ARTIFACT_CREATE) {
        let text = |name: &str| args.get(name).and_then(Value::as_str);
        if let (Some(filename), Some(content)) = (text(params::FILENAME), text(params::CONTENT)) {
            found.push(Artifact {
                filename: filename.to_owned(),
                mime: text(params::MIME).map(str::to_owned),
                content: content.to_owned(),
            });
        }
    }
    found
}

/// The newest version of the artifact named `name` on `path`.
pub(crate) fn latest(path: &[NodeRecord], name: &str) -> Option<Artifact> {
    saved(path).into_iter().rev().find(|artifact| artifact.filename == name)
}

/// Why the thread has no artifact `name`, naming those it has, for the model.
pub(crate) fn missing(path: &[NodeRecord], name: &str) -> String {
    let mut names: Vec<String> = saved(path).into_iter().map(|a| a.filename).collect();
    names.dedup();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return format!("this chat has no artifact named \"{name}\" (it has none yet)");
    }
    format!("this chat has no artifact named \"{name}\"; it has: {}", names.join(", "))
}

/// `artifact_create` on the thread whose branch is `path` (this call included, without its
/// result): what the model is told. The call itself is the saved artifact.
pub(crate) fn create(path: &[NodeRecord], args: &Value) -> ToolOutcome {
    let text = |name: &str| args.get(name).and_then(Value::as_str);
    let filename = text(params::FILENAME).unwrap_or_default();
    if let Some(problem) = filename_problem(filename) {
        return ToolOutcome::failed(problem);
    }
    let content = text(params::CONTENT).unwrap_or_default();
    let kind = ArtifactKind::of(filename, text(params::MIME));
    let earlier = saved(path).iter().filter(|a| a.filename == filename).count();
    let size = size_text(content.len());
    let saved = if earlier == 0 {
        format!("Saved the artifact \"{filename}\" ({}, {size}).", kind.name())
    } else {
        format!(
            "Saved version {} of the artifact \"{filename}\" ({}, {size}); downloads and opens \
             by this name now take this version.",
            earlier + 1,
            kind.name()
        )
    };
    ToolOutcome::done(format!(
        "{saved} The user sees it as a card in the chat, where they can open and download it."
    ))
}

/// Checks of `artifact_create` and `download` that need no store, made before the call is
/// judged: a call that cannot work is refused instead of asked about.
pub(crate) fn check(tool: &str, args: &Value) -> Result<(), String> {
    let text = |name: &str| args.get(name).and_then(Value::as_str);
    match tool {
        catalog::ARTIFACT_CREATE => {
            filename_problem(text(params::FILENAME).unwrap_or_default()).map_or(Ok(()), Err)
        }
        catalog::DOWNLOAD => {
            match (text("url"), text("artifact")) {
                (None, None) => {
                    return Err("download needs url (an http(s) URL) or artifact (the filename \
                                of an artifact of this chat)"
                        .to_owned());
                }
                (Some(_), Some(_)) => {
                    return Err("give download either url or artifact, not both".to_owned());
                }
                (Some(url), None) => {
                    let lower = url.trim().to_ascii_lowercase();
                    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                        return Err("download saves http:// and https:// URLs only".to_owned());
                    }
                }
                (None, Some(_)) => {}
            }
            match text("filename").and_then(filename_problem) {
                Some(problem) => Err(format!("filename: {problem}")),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// A size as a person reads it: bytes, KB or MB (of 1,000).
fn size_text(bytes: usize) -> String {
    match bytes {
        0..1_000 => format!("{bytes} bytes"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1_000.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_000_000.0),
    }
}

/// Hands a dispatched `download` of an artifact its content, read from the thread's branch now
/// (the newest version of that name); a name the thread does not have ends the call with the
/// names it has. Every other effect passes unchanged.
pub(crate) async fn with_artifact(
    store: &impl Store,
    request: EffectRequest,
) -> Result<EffectRequest, FollowUp> {
    let EffectRequest::Tool { run, index, mut call } = request else { return Ok(request) };
    if call.tool != catalog::DOWNLOAD {
        return Ok(EffectRequest::Tool { run, index, call });
    }
    // Only the engine says what an artifact holds: whatever the model put there goes.
    if let Some(args) = call.params.as_object_mut() {
        args.remove(handed::CONTENT);
        args.remove(handed::MIME);
    }
    let Some(name) = call.params.get("artifact").and_then(Value::as_str).map(str::to_owned) else {
        return Ok(EffectRequest::Tool { run, index, call });
    };
    let artifact = match artifact_of(store, &call, &name).await {
        Ok(Ok(artifact)) => artifact,
        Ok(Err(message)) => {
            let body = ResultBody::Outcome(ToolOutcome::failed(message));
            return Err(FollowUp::WriteResult { run, index, body });
        }
        Err(err) => return Err(FollowUp::Fail(run, err.to_string())),
    };
    let mime = download_mime(&artifact.filename, artifact.mime.as_deref());
    if let Some(args) = call.params.as_object_mut() {
        args.insert(handed::CONTENT.to_owned(), Value::String(artifact.content));
        args.insert(handed::MIME.to_owned(), Value::String(mime));
    }
    Ok(EffectRequest::Tool { run, index, call })
}

/// The newest artifact `name` on the calling thread's branch, or why there is none.
pub(crate) async fn artifact_of(
    store: &impl Store,
    call: &ToolInvocation,
    name: &str,
) -> Result<Result<Artifact, String>, StoreError> {
    let Some(state) = reads::thread_state(store, &call.thread_id).await? else {
        return Ok(Err("this chat was deleted".to_owned()));
    };
    let path = reads::path_to(store, &state, state.meta.leaf_id.as_ref()).await?;
    Ok(latest(&path, name).ok_or_else(|| missing(&path, name)))
}

#[cfg(test)]
#[path = "artifacts_tests.rs"]
mod tests;
