//! Coalescing of `item.delta` events: consecutive deltas of one item are merged for up to 16 ms,
//! and any other event of the thread first flushes what is buffered, so merging never reorders
//! anything a client sees.

use panelot_protocol::ThreadId;
use panelot_protocol::engine::ItemDelta;
use panelot_protocol::engine::ItemDeltaEvent;

/// How long a delta may wait for more of the same item.
pub const COALESCE_MS: u64 = 16;

#[derive(Debug)]
struct Buffered {
    event: ItemDeltaEvent,
    since_ms: u64,
}

/// Deltas waiting to be sent, in arrival order.
#[derive(Debug, Default)]
pub(crate) struct DeltaBuffer {
    pending: Vec<Buffered>,
}

impl DeltaBuffer {
    /// Buffers a delta, merging it into the thread's last buffered delta when that one is of
    /// the same item.
    pub(crate) fn push(&mut self, event: ItemDeltaEvent, now_ms: u64) {
        let last = self.pending.iter_mut().rev().find(|b| b.event.thread_id == event.thread_id);
        match last {
            Some(last) if last.event.item_id == event.item_id => {
                merge(&mut last.event.delta, event.delta);
            }
            _ => self.pending.push(Buffered { event, since_ms: now_ms }),
        }
    }

    /// Takes every buffered delta of `thread`, in order.
    pub(crate) fn take_thread(&mut self, thread: &ThreadId) -> Vec<ItemDeltaEvent> {
        let (taken, kept) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|b| &b.event.thread_id == thread);
        self.pending = kept;
        taken.into_iter().map(|b: Buffered| b.event).collect()
    }

    /// Threads with a delta that has waited long enough.
    pub(crate) fn due_threads(&self, now_ms: u64) -> Vec<ThreadId> {
        let mut threads: Vec<ThreadId> = Vec::new();
        for b in &self.pending {
            if b.since_ms + COALESCE_MS <= now_ms && !threads.contains(&b.event.thread_id) {
                threads.push(b.event.thread_id.clone());
            }
        }
        threads
    }

    /// When the oldest buffered delta is due.
    pub(crate) fn deadline(&self) -> Option<u64> {
        self.pending.iter().map(|b| b.since_ms + COALESCE_MS).min()
    }
}

fn merge(into: &mut ItemDelta, more: ItemDelta) {
    append(&mut into.text, more.text);
    append(&mut into.reasoning, more.reasoning);
    if more.tool_progress.is_some() {
        into.tool_progress = more.tool_progress;
    }
    if more.tool_params.is_some() {
        into.tool_params = more.tool_params;
    }
}

fn append(into: &mut Option<String>, more: Option<String>) {
    if let Some(more) = more {
        into.get_or_insert_with(String::new).push_str(&more);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use panelot_protocol::ItemId;

    use super::*;

    fn delta(thread: &str, item: &str, text: &str) -> ItemDeltaEvent {
        ItemDeltaEvent {
            thread_id: ThreadId::new(thread).unwrap(),
            item_id: ItemId::new(item).unwrap(),
            delta: ItemDelta { text: Some(text.into()), ..ItemDelta::default() },
        }
    }

    fn texts(events: &[ItemDeltaEvent]) -> Vec<(String, String)> {
        events
            .iter()
            .map(|e| (e.item_id.to_string(), e.delta.text.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn consecutive_deltas_of_an_item_merge_but_interleaved_items_keep_their_order() {
        let mut buffer = DeltaBuffer::default();
        for (item, text) in [("a", "1"), ("a", "2"), ("b", "3"), ("a", "4"), ("a", "5")] {
            buffer.push(delta("t", item, text), 0);
        }
        buffer.push(delta("u", "c", "other thread"), 0);
        let taken = buffer.take_thread(&ThreadId::new("t").unwrap());
        assert_eq!(
            texts(&taken),
            [("a".into(), "12".into()), ("b".into(), "3".into()), ("a".into(), "45".into())]
        );
        assert_eq!(buffer.due_threads(15), Vec::<ThreadId>::new());
        assert_eq!(buffer.deadline(), Some(16));
        assert_eq!(buffer.due_threads(16), vec![ThreadId::new("u").unwrap()]);
    }
}
