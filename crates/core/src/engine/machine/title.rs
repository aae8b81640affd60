//! A thread's title: the first line of its first message at once, then a generated one asked of
//! the model once the turn's first call has answered (never competing with it). A title the user
//! gave meanwhile always wins.

use panelot_protocol::AgentEvent;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::ThreadUpdatedEvent;

use crate::model::ContentPart;
use crate::model::GenParams;
use crate::model::Message;
use crate::model::ModelRequest;
use crate::model::SystemPrompt;

/// Title of a new thread until its first message names it.
pub(crate) const NEW_THREAD_TITLE: &str = "New chat";
/// Longest fallback title (the first line of the first message).
const FALLBACK_TITLE_CHARS: usize = 40;
/// Longest generated title.
const GENERATED_TITLE_CHARS: usize = 60;
/// Most characters of the first message the title call sees.
const TITLE_EXCERPT_CHARS: usize = 2_000;
/// The instruction of the title call.
pub const TITLE_PROMPT: &str = "Name the task in the user's message for a list of conversations: at most 6 words, in the user's language, no punctuation, no quotes. Name the task, not the tool. Reply with the title only.";

/// The title shown at once: the first line of the first message.
pub(crate) fn fallback_title(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or(NEW_THREAD_TITLE);
    let mut title: String = line.chars().take(FALLBACK_TITLE_CHARS).collect();
    if line.chars().count() > FALLBACK_TITLE_CHARS {
        title.push('…');
    }
    title
}

/// A generated title cleaned of what models add anyway (quotes, a trailing period, markup).
pub(crate) fn clean_title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let trimmed = line.trim_start_matches(['#', '*', ' ']).trim_matches(|c: char| {
        matches!(c, '"' | '\'' | '“' | '”' | '「' | '」' | '*' | '.' | '。' | ' ')
    });
    let title: String = trimmed.chars().take(GENERATED_TITLE_CHARS).collect();
    (!title.is_empty()).then_some(title)
}

/// The title call for a thread whose first message is `text`.
pub(crate) fn request(model: &str, text: &str) -> ModelRequest {
    let excerpt: String = text.chars().take(TITLE_EXCERPT_CHARS).collect();
    ModelRequest {
        model: model.to_owned(),
        system: SystemPrompt { stable: TITLE_PROMPT.to_owned(), dynamic: String::new() },
        messages: vec![Message::User { content: vec![ContentPart::Text(excerpt)] }],
        tools: Vec::new(),
        params: GenParams { max_tokens: Some(512), ..Default::default() },
    }
}

/// The thread with its generated title, when the answer holds one and the thread still shows
/// the fallback.
pub(crate) fn titled(mut meta: ThreadMeta, fallback: &str, answer: &str) -> Option<ThreadMeta> {
    let title = clean_title(answer)?;
    if meta.title != fallback {
        return None;
    }
    meta.title = title;
    meta.revision += 1;
    Some(meta)
}

/// The `thread.updated` that announces a new title.
pub(crate) fn title_changed(meta: &ThreadMeta) -> AgentEvent {
    AgentEvent::ThreadUpdated(ThreadUpdatedEvent {
        thread_id: meta.id.clone(),
        revision: meta.revision,
        patch: ThreadMetaPatch { title: Some(meta.title.clone()), ..Default::default() },
    })
}
