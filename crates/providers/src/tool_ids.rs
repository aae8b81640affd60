//! Thread-unique tool-call ids: the provider's id when it is usable, a generated one otherwise.

/// Longest provider id kept as is.
const MAX_ID_LEN: usize = 64;

/// Assigns tool-call ids for one model call.
///
/// Providers send empty ids, repeat ids within a response, or reuse ids of earlier calls in the
/// thread; the result of a call must still name exactly one call. The caller supplies a prefix
/// unique within the thread (for example derived from the turn and call number) and the ids the
/// thread already holds; generated ids are `{prefix}{n}`.
#[derive(Debug, Clone)]
pub struct ToolCallIds {
    prefix: String,
    next: u64,
    /// Sorted and distinct, searched by binary search (a `BTreeSet<String>` compiled a B-tree of
    /// its own into the engine wasm).
    used: Vec<String>,
}

impl ToolCallIds {
    /// Ids generated as `{prefix}0`, `{prefix}1`, …; the prefix should itself be made of
    /// `[A-Za-z0-9_-]` so the ids replay to every wire format.
    pub fn new(prefix: impl Into<String>) -> ToolCallIds {
        ToolCallIds { prefix: prefix.into(), next: 0, used: Vec::new() }
    }

    /// Marks ids already used in the thread, so a provider repeating one gets a fresh id.
    pub fn with_taken(mut self, ids: impl IntoIterator<Item = String>) -> ToolCallIds {
        for id in ids {
            self.insert(id);
        }
        self
    }

    /// Adds `id` to the used ids; false when it was there.
    fn insert(&mut self, id: String) -> bool {
        match self.used.binary_search(&id) {
            Ok(_) => false,
            Err(at) => {
                self.used.insert(at, id);
                true
            }
        }
    }

    /// The id for a call the provider named `provider_id`.
    ///
    /// The provider's id is kept when it is new and made of `[A-Za-z0-9_-]` (at most 64 bytes):
    /// Anthropic rejects other ids on replay, and a thread may switch providers.
    pub fn assign(&mut self, provider_id: &str) -> String {
        let usable = !provider_id.is_empty()
            && provider_id.len() <= MAX_ID_LEN
            && provider_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if usable && self.insert(provider_id.to_owned()) {
            return provider_id.to_owned();
        }
        loop {
            let id = format!("{}{}", self.prefix, self.next);
            self.next += 1;
            if self.insert(id.clone()) {
                return id;
            }
        }
    }
}

#[cfg(test)]
#[path = "tool_ids_tests.rs"]
mod tests;
