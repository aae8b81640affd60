//! What the composer attaches from a tab: the page or its selection as a context block.

use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::Trust;

use crate::state::urls::origin_of;

/// What the composer can attach from the current tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attach {
    /// The text of the page.
    Page,
    /// The selection in the page.
    Selection,
}

/// What `read_page.js` read from a tab.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageRead {
    /// `location.href`.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// The selected text (empty when nothing is selected).
    pub selection: String,
    /// `document.body.innerText`, cut.
    pub text: String,
}

impl PageRead {
    /// Reads the script's completion value; missing fields are empty.
    pub fn from_json(value: &serde_json::Value) -> PageRead {
        let field = |name: &str| value[name].as_str().unwrap_or_default().to_owned();
        PageRead {
            url: field("url"),
            title: field("title"),
            selection: field("selection"),
            text: field("text"),
        }
    }
}

/// The context block for `what` of a page; `None` when there is nothing to attach (an empty
/// selection). Page content is data, never instructions: it goes to the model as untrusted,
/// from the page, with its origin. A page of a known tab goes without its text: the engine
/// reads it with the page executor before the model's first call, so the model gets the
/// snapshot with refs it can act on, not just the words.
pub fn context_block(what: Attach, read: &PageRead, tab: Option<TabRef>) -> Option<ContextBlock> {
    let (kind, text, label) = match what {
        Attach::Page => (ContextKind::Page, read.text.trim(), read.title.clone()),
        Attach::Selection => (ContextKind::Selection, read.selection.trim(), {
            let preview: String = read.selection.trim().chars().take(40).collect();
            format!("“{preview}” · {}", read.title)
        }),
    };
    if text.is_empty() {
        return None;
    }
    Some(ContextBlock {
        kind,
        label: if label.trim().is_empty() { read.url.clone() } else { label },
        origin: origin_of(&read.url),
        trust: Trust::Untrusted,
        provenance: Provenance::Page,
        source_ref: Some(read.url.clone()),
        content: match (what, &tab) {
            (Attach::Page, Some(_)) => ContextContent::Empty,
            _ => ContextContent::Text { text: text.to_owned() },
        },
        tab,
        // About four characters per token: a chip hint, not a budget.
        approx_tokens: u32::try_from(text.chars().count().div_ceil(4)).ok(),
    })
}

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
