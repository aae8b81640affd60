//! The composer's MCP prompts and resources: the slash command being typed (`/server:prompt`)
//! and the prompts it matches, the menu's keys, a prompt's argument form and its validation, the
//! `mcp.fetch` it sends, and the answer turned into a chip on the next message.
//!
//! What a server says (titles, descriptions, prompt text) is untrusted: the views show it as
//! text, and the chip goes to the engine as an untrusted block, which the engine fences as MCP
//! content whatever a UI sets.

use std::collections::BTreeMap;

use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::McpFetch;
use panelot_protocol::engine::McpFetchParams;
use panelot_protocol::engine::McpFetchedEvent;
use panelot_protocol::engine::McpListFailure;
use panelot_protocol::engine::McpListParams;
use panelot_protocol::engine::McpListedEvent;
use panelot_protocol::engine::McpPromptView;
use panelot_protocol::engine::McpResourceView;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::Trust;

use super::keys::ComposerAction;

/// How long a listing is used before the menu asks again: long enough that typing does not
/// ask at every key, short enough that a prompt added at the server shows up soon.
pub const LIST_FRESH_MS: f64 = 30_000.0;
/// How long an unanswered `mcp.list` is waited for before the menu asks again (a control Op
/// sent while the port was down is never answered).
pub const LIST_RETRY_MS: f64 = 5_000.0;

/// What `mcp.list` last answered, and the ask under way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpCatalog {
    /// Every prompt, server by server.
    pub prompts: Vec<McpPromptView>,
    /// Every resource, server by server.
    pub resources: Vec<McpResourceView>,
    /// Servers that could not be listed.
    pub failures: Vec<McpListFailure>,
    /// Why the engine refused the last ask, if it did.
    pub refusal: Option<String>,
    listed_at_ms: Option<f64>,
    asking: Option<(SubmissionId, f64)>,
}

impl McpCatalog {
    /// Whether the menu should ask for a listing now: none is fresh and none is awaited.
    pub fn needs_asking(&self, now_ms: f64) -> bool {
        let fresh = self.listed_at_ms.is_some_and(|at| now_ms - at < LIST_FRESH_MS);
        let awaited = self.asking.as_ref().is_some_and(|(_, at)| now_ms - at < LIST_RETRY_MS);
        !fresh && !awaited
    }

    /// Records the `mcp.list` just sent.
    pub fn asked(&mut self, submission_id: SubmissionId, now_ms: f64) {
        self.asking = Some((submission_id, now_ms));
    }

    /// Whether nothing has been listed yet and an ask is under way.
    pub fn loading(&self) -> bool {
        self.listed_at_ms.is_none() && self.asking.is_some()
    }

    /// Takes a listing. Any `mcp.listed` on this page's port answers one of its asks (replies go
    /// to the asking port only), so an answer to an earlier ask is taken too: it is as new.
    pub fn listed(&mut self, event: &McpListedEvent, now_ms: f64) {
        self.prompts.clone_from(&event.prompts);
        self.resources.clone_from(&event.resources);
        self.failures.clone_from(&event.failures);
        self.refusal = None;
        self.listed_at_ms = Some(now_ms);
        if self.asking.as_ref().is_some_and(|(id, _)| id == &event.submission_id) {
            self.asking = None;
        }
    }

    /// Whether `submission_id` is the ask under way.
    pub fn is_asking(&self, submission_id: &SubmissionId) -> bool {
        self.asking.as_ref().is_some_and(|(id, _)| id == submission_id)
    }

    /// Takes a refusal; returns whether it answered the ask under way.
    pub fn refused(&mut self, submission_id: &SubmissionId, reason: &str) -> bool {
        if !self.is_asking(submission_id) {
            return false;
        }
        self.asking = None;
        self.refusal = Some(reason.to_owned());
        true
    }
}

/// The `mcp.list` of every server.
pub fn list_op(submission_id: SubmissionId) -> Op {
    Op::McpList(McpListParams { submission_id, server_id: None })
}

/// The query of the slash command being typed: the text after a leading `/` while the box
/// holds nothing else (no space or newline yet). `None` when the box is not a slash command.
pub fn slash_query(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('/')?;
    (!rest.contains(char::is_whitespace)).then_some(rest)
}

/// A prompt as its slash command: `/server:prompt`.
pub fn prompt_command(prompt: &McpPromptView) -> String {
    format!("/{}:{}", prompt.server_id, prompt.name)
}

/// The prompts `query` (typed after `/`) matches, best first: those whose `server:prompt`
/// starts with it, then those whose name does, then those whose command or title contains it
/// (ignoring case); in listing order within each. An empty query matches every prompt.
pub fn matching_prompts<'a>(prompts: &'a [McpPromptView], query: &str) -> Vec<&'a McpPromptView> {
    let query = query.to_lowercase();
    let rank = |prompt: &McpPromptView| {
        let command = format!("{}:{}", prompt.server_id, prompt.name).to_lowercase();
        if command.starts_with(&query) {
            Some(0)
        } else if prompt.name.to_lowercase().starts_with(&query) {
            Some(1)
        } else if command.contains(&query) || prompt.title.to_lowercase().contains(&query) {
            Some(2)
        } else {
            None
        }
    };
    let mut ranked: Vec<(u8, &McpPromptView)> =
        prompts.iter().filter_map(|p| rank(p).map(|r| (r, p))).collect();
    // A stable sort keeps the listing's order among equals.
    ranked.sort_by_key(|(r, _)| *r);
    ranked.into_iter().map(|(_, p)| p).collect()
}

/// What a key does while the slash menu is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuKey {
    /// The previous entry (wrapping).
    Up,
    /// The next entry (wrapping).
    Down,
    /// Choose the highlighted entry.
    Choose,
    /// Close the menu, leaving the text.
    Close,
}

/// What `key` does in the open menu; `None` leaves it to the text box. Keys that compose text
/// (an IME) are left alone.
pub fn menu_key(key: &str, shift: bool, is_composing: bool) -> Option<MenuKey> {
    if is_composing {
        return None;
    }
    match key {
        "ArrowUp" => Some(MenuKey::Up),
        "ArrowDown" => Some(MenuKey::Down),
        "Enter" | "Tab" if !shift => Some(MenuKey::Choose),
        "Escape" => Some(MenuKey::Close),
        _ => None,
    }
}

/// The entry highlighted after `key` among `n_entries`, from `selected`.
pub fn step_selection(selected: usize, n_entries: usize, key: MenuKey) -> usize {
    if n_entries == 0 {
        return 0;
    }
    let selected = selected.min(n_entries - 1);
    match key {
        MenuKey::Up => selected.checked_sub(1).unwrap_or(n_entries - 1),
        MenuKey::Down => (selected + 1) % n_entries,
        MenuKey::Choose | MenuKey::Close => selected,
    }
}

/// A prompt's argument form: one value per argument, in the prompt's order.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptForm {
    /// The prompt.
    pub prompt: McpPromptView,
    /// The values typed, one per argument.
    pub values: Vec<String>,
    /// Required arguments left empty at the last submit (indexes), shown as such.
    pub missing: Vec<usize>,
}

impl PromptForm {
    /// An empty form for `prompt`.
    pub fn new(prompt: McpPromptView) -> PromptForm {
        let values = vec![String::new(); prompt.arguments.len()];
        PromptForm { prompt, values, missing: Vec::new() }
    }

    /// Sets the value of argument `index`; it is no longer marked missing.
    pub fn set(&mut self, index: usize, value: String) {
        if let Some(slot) = self.values.get_mut(index) {
            *slot = value;
            self.missing.retain(|&i| i != index);
        }
    }

    /// The fetch of the prompt with the values typed (trimmed; empty optional ones left out),
    /// or `None` with the empty required ones marked missing.
    pub fn submit(&mut self) -> Option<McpFetch> {
        let mut arguments = BTreeMap::new();
        self.missing.clear();
        for (index, argument) in self.prompt.arguments.iter().enumerate() {
            let value = self.values.get(index).map_or("", |v| v.trim());
            if value.is_empty() {
                if argument.required {
                    self.missing.push(index);
                }
                continue;
            }
            arguments.insert(argument.name.clone(), value.to_owned());
        }
        self.missing
            .is_empty()
            .then(|| McpFetch::Prompt { name: self.prompt.name.clone(), arguments })
    }
}

/// What choosing a prompt leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptChoice {
    /// It takes arguments: ask for them first.
    Ask(PromptForm),
    /// It takes none: fetch it now.
    Fetch(McpFetch),
}

/// What choosing `prompt` leads to.
pub fn choose_prompt(prompt: &McpPromptView) -> PromptChoice {
    if prompt.arguments.is_empty() {
        PromptChoice::Fetch(McpFetch::Prompt {
            name: prompt.name.clone(),
            arguments: BTreeMap::new(),
        })
    } else {
        PromptChoice::Ask(PromptForm::new(prompt.clone()))
    }
}

/// The `mcp.fetch` of `fetch` at the server `server_id`.
pub fn fetch_op(submission_id: SubmissionId, server_id: &str, fetch: McpFetch) -> Op {
    Op::McpFetch(McpFetchParams { submission_id, server_id: server_id.to_owned(), fetch })
}

/// The chip's label for `fetch` at `server_id`: `/server:prompt`, or the resource's URI.
pub fn fetch_label(server_id: &str, fetch: &McpFetch) -> String {
    match fetch {
        McpFetch::Prompt { name, .. } => format!("/{server_id}:{name}"),
        McpFetch::Resource { uri } => uri.clone(),
    }
}

/// A fetch sent and not answered yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFetch {
    /// The `mcp.fetch`.
    pub submission_id: SubmissionId,
    /// What it gets, as its chip will say.
    pub label: String,
}

/// The fetches under way, and the last one refused.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpFetches {
    /// Sent, not answered yet, oldest first.
    pub pending: Vec<PendingFetch>,
    /// The last refusal: what was asked for, and why it was refused.
    pub refusal: Option<(String, String)>,
    /// A send the user asked for while fetches were under way: it waits for them, so what
    /// was chosen for the message goes with it (not with the next one).
    pub held: Option<ComposerAction>,
}

impl McpFetches {
    /// Records a fetch just sent (a new fetch clears the last refusal).
    pub fn started(&mut self, submission_id: SubmissionId, label: String) {
        self.refusal = None;
        self.pending.push(PendingFetch { submission_id, label });
    }

    /// Holds `action` (a send) while fetches are under way; whether it was held.
    pub fn hold(&mut self, action: ComposerAction) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        self.held = Some(action);
        true
    }

    /// The held send, once the last fetch has arrived.
    pub fn release(&mut self) -> Option<ComposerAction> {
        if !self.pending.is_empty() {
            return None;
        }
        self.held.take()
    }

    /// The chip for an answer to one of this page's fetches, `None` for any other.
    pub fn fetched(&mut self, event: &McpFetchedEvent) -> Option<ContextBlock> {
        let index = self.pending.iter().position(|p| p.submission_id == event.submission_id)?;
        let pending = self.pending.remove(index);
        Some(chip(event.block.clone(), &pending.label))
    }

    /// Takes a refusal; returns whether it answered one of this page's fetches.
    pub fn refused(&mut self, submission_id: &SubmissionId, reason: &str) -> bool {
        let Some(index) = self.pending.iter().position(|p| &p.submission_id == submission_id)
        else {
            return false;
        };
        let pending = self.pending.remove(index);
        self.refusal = Some((pending.label, reason.to_owned()));
        // The message was meant to go with it: it waits for the user, who sees why.
        self.held = None;
        true
    }
}

/// The block the engine fetched, as a chip: its label is the engine's (else `label`), its size
/// estimated when the engine gave none, and it stays untrusted (the engine fences MCP blocks
/// anyway; the UI never claims otherwise).
pub fn chip(mut block: ContextBlock, label: &str) -> ContextBlock {
    if block.label.trim().is_empty() {
        label.clone_into(&mut block.label);
    }
    if block.approx_tokens.is_none()
        && let ContextContent::Text { text } = &block.content
    {
        // About four characters per token: a chip hint, not a budget.
        block.approx_tokens = u32::try_from(text.chars().count().div_ceil(4)).ok();
    }
    block.trust = Trust::Untrusted;
    block
}

/// A server's display name (its id when it is not in `servers`).
pub fn server_name<'a>(servers: &'a [McpServerView], server_id: &'a str) -> &'a str {
    servers.iter().find(|s| s.id == server_id).map_or(server_id, |s| s.name.as_str())
}

/// The resources grouped by server, in listing order: each server's display name and its
/// resources.
pub fn resources_by_server<'a>(
    resources: &'a [McpResourceView],
    servers: &'a [McpServerView],
) -> Vec<(&'a str, Vec<&'a McpResourceView>)> {
    let mut groups: Vec<(&str, &str, Vec<&McpResourceView>)> = Vec::new();
    for resource in resources {
        match groups.iter_mut().find(|(id, _, _)| *id == resource.server_id) {
            Some((_, _, group)) => group.push(resource),
            None => groups.push((
                &resource.server_id,
                server_name(servers, &resource.server_id),
                vec![resource],
            )),
        }
    }
    groups.into_iter().map(|(_, name, group)| (name, group)).collect()
}

/// The text with the slash command removed from its start (and the space after it), once the
/// command has been chosen.
pub fn without_slash_command(text: &str) -> String {
    if !text.starts_with('/') {
        return text.to_owned();
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    text[end..].trim_start().to_owned()
}

#[cfg(test)]
#[path = "mcp_picker_tests.rs"]
mod tests;
