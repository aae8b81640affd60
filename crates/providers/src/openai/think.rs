//! Splits inline `<think>…</think>` reasoning out of streamed text (the `thinkTagReasoning`
//! quirk), with tags split across chunks anywhere.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Where a piece of text belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    /// Visible answer.
    Text,
    /// Reasoning.
    Reasoning,
}

/// The splitter's state between chunks.
#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    inside: bool,
    /// A tail that may be the start of a tag, held until the next chunk decides.
    pending: String,
    /// Whitespace is dropped at the start of the answer and right after `</think>`: models put
    /// blank lines around the reasoning that are not part of what they say.
    trim_next_text: bool,
}

impl ThinkSplitter {
    pub(crate) fn new() -> ThinkSplitter {
        ThinkSplitter { inside: false, pending: String::new(), trim_next_text: true }
    }

    /// Splits more text, calling `emit` for each non-empty piece in order.
    pub(crate) fn push(&mut self, text: &str, emit: &mut impl FnMut(Channel, &str)) {
        let joined;
        let mut rest = if self.pending.is_empty() {
            text
        } else {
            joined = std::mem::take(&mut self.pending) + text;
            joined.as_str()
        };
        loop {
            let tag = if self.inside { CLOSE } else { OPEN };
            if let Some(pos) = rest.find(tag) {
                self.emit(&rest[..pos], emit);
                self.inside = !self.inside;
                self.trim_next_text |= !self.inside;
                rest = &rest[pos + tag.len()..];
                continue;
            }
            let keep = partial_tag_len(rest, tag);
            let (now, later) = rest.split_at(rest.len() - keep);
            self.emit(now, emit);
            self.pending.push_str(later);
            return;
        }
    }

    /// The stream ended: a held tail was not a tag after all.
    pub(crate) fn flush(&mut self, emit: &mut impl FnMut(Channel, &str)) {
        let pending = std::mem::take(&mut self.pending);
        self.emit(&pending, emit);
    }

    fn emit(&mut self, piece: &str, emit: &mut impl FnMut(Channel, &str)) {
        if self.inside {
            if !piece.is_empty() {
                emit(Channel::Reasoning, piece);
            }
            return;
        }
        let piece = if self.trim_next_text { piece.trim_start() } else { piece };
        if !piece.is_empty() {
            self.trim_next_text = false;
            emit(Channel::Text, piece);
        }
    }
}

/// Length of the longest suffix of `text` that is a proper prefix of `tag`.
fn partial_tag_len(text: &str, tag: &str) -> usize {
    (1..tag.len()).rev().find(|&n| text.ends_with(&tag[..n])).unwrap_or(0)
}

#[cfg(test)]
#[path = "think_tests.rs"]
mod tests;
