//! Every setting the engine stores, with its type: one place owns the keys, their value types
//! and how they are read and written, so a setting is handled the same way everywhere and a
//! typo in a key cannot compile.
//!
//! * [`Setting`]: a typed key; [`Setting::read`] decodes what is stored (an unset or unreadable
//!   value is `None`: a single value is replaced whole when written, so nothing is lost),
//!   [`Setting::write`] makes the [`WriteOp`] that stores a value.
//! * [`ListSetting`]: a list of records (permission rules, presets) read one by one, so that one
//!   record this version cannot read never hides the others, and written back with the records
//!   it could not read kept as they were: saving a list never drops what another version wrote.
//! * [`StoredRule`]: a permission rule as stored.
//! * [`SessionGrants`]: "accept for this session", bound to one browser session.
//! * [`PermissionState`]: everything the gatekeeper reads, loaded at once.

use std::marker::PhantomData;
use std::ops::Deref;
use std::ops::DerefMut;

use panelot_protocol::Origin;
use panelot_protocol::OriginPattern;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::Language;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::PermissionRuleView;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::PresetView;
use panelot_protocol::engine::RuleAuthor;
use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::gatekeeper::Rule;
use crate::gatekeeper::RuleSource;
use crate::gatekeeper::RuleVerdict;
use crate::gatekeeper::SensitiveOrigins;
use crate::sorted_map::SortedMap;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::WriteOp;

/// A setting's key and the type of its value.
#[derive(Debug)]
pub struct Setting<T> {
    key: &'static str,
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Setting<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Setting<T> {}

impl<T: Serialize + DeserializeOwned> Setting<T> {
    const fn new(key: &'static str) -> Self {
        Setting { key, value: PhantomData }
    }

    /// The key it is stored under.
    pub fn key(&self) -> &'static str {
        self.key
    }

    /// The stored value; `None` when unset or unreadable by this version.
    pub async fn read(&self, store: &impl Store) -> Result<Option<T>, StoreError> {
        Ok(store
            .setting(self.key)
            .await?
            .and_then(|value| panelot_protocol::from_value(value).ok()))
    }

    /// The write that stores `value`.
    pub fn write(&self, value: &T) -> Result<WriteOp, StoreError> {
        let value = panelot_protocol::to_value(value)
            .map_err(|err| StoreError::Corrupt(err.to_string()))?;
        Ok(WriteOp::PutSetting { key: self.key.into(), value })
    }
}

/// A setting holding a list of records of type `T` (see the module doc).
#[derive(Debug)]
pub struct ListSetting<T> {
    key: &'static str,
    item: PhantomData<fn() -> T>,
}

impl<T> Clone for ListSetting<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ListSetting<T> {}

/// A list setting as read: the records this version reads (the list it derefs to), and the
/// others kept as stored, written back after them.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredList<T> {
    items: Vec<T>,
    unreadable: Vec<Value>,
}

impl<T> Deref for StoredList<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T> DerefMut for StoredList<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

impl<T> StoredList<T> {
    /// The records this version reads.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }
}

impl<T: Serialize + DeserializeOwned> ListSetting<T> {
    const fn new(key: &'static str) -> Self {
        ListSetting { key, item: PhantomData }
    }

    /// The key it is stored under.
    pub fn key(&self) -> &'static str {
        self.key
    }

    /// The stored list; empty when unset. A stored value that is not a list counts as one
    /// record this version cannot read.
    pub async fn read(&self, store: &impl Store) -> Result<StoredList<T>, StoreError> {
        let raw = match store.setting(self.key).await? {
            None => Vec::new(),
            Some(Value::Array(records)) => records,
            Some(other) => vec![other],
        };
        let mut list = StoredList { items: Vec::new(), unreadable: Vec::new() };
        for record in raw {
            match panelot_protocol::from_value(record.clone()) {
                Ok(item) => list.items.push(item),
                Err(err) => {
                    warn_unreadable(self.key, &err);
                    list.unreadable.push(record);
                }
            }
        }
        Ok(list)
    }

    /// The write that stores `list`: its records, then the ones read but not understood.
    pub fn write(&self, list: &StoredList<T>) -> Result<WriteOp, StoreError> {
        let mut records = Vec::with_capacity(list.items.len() + list.unreadable.len());
        for item in &list.items {
            records.push(
                panelot_protocol::to_value(item)
                    .map_err(|err| StoreError::Corrupt(err.to_string()))?,
            );
        }
        records.extend(list.unreadable.iter().cloned());
        Ok(WriteOp::PutSetting { key: self.key.into(), value: Value::Array(records) })
    }
}

/// Logs a list record kept unread; not generic, so the log call is compiled once and not in
/// each list's reader.
#[cold]
#[inline(never)]
fn warn_unreadable(key: &str, err: &serde_json::Error) {
    tracing::warn!(key, %err, "kept a record this version cannot read");
}

/// The model connections, as the host's vault makes them (keys sealed): the engine never reads
/// inside them except for their `id`.
pub const CONNECTIONS: Setting<Vec<Value>> = Setting::new("connections");
/// The model used when a turn names none.
pub const DEFAULT_MODEL: Setting<ModelChoice> = Setting::new("defaultModel");
/// The global permission policy (`untrusted` when unset).
pub const PERMISSION_POLICY: Setting<PermissionPolicy> = Setting::new("permissionPolicy");
/// Tokens a turn may spend before it pauses; unset (or null) is unlimited.
pub const TURN_TOKEN_BUDGET: Setting<Option<u64>> = Setting::new("turnTokenBudget");
/// The permission rules.
pub const RULES: ListSetting<StoredRule> = ListSetting::new("permissionRules");
/// Set once the default rules were seeded, so a rule the user deleted stays deleted.
pub const RULES_SEEDED: Setting<bool> = Setting::new("permissionRulesSeeded");
/// Origin patterns the user added to the sensitive list.
pub const SENSITIVE_ORIGINS: Setting<Vec<String>> = Setting::new("sensitiveOrigins");
/// Every model preset, in the order they were made.
pub const PRESETS: ListSetting<PresetView> = ListSetting::new("presets");
/// The language of every page.
pub const LANGUAGE: Setting<Language> = Setting::new("language");
/// "Accept for this session" grants of every thread.
pub const SESSION_GRANTS: Setting<SessionGrants> = Setting::new("sessionGrants");
/// Whether the agent may open pages beside the chat (`sidebar_open`); off by default.
pub const AGENT_OPEN_TOOLS: Setting<bool> = Setting::new("agentOpenTools");
/// Pages `sidebar_open` opened for threads no view showed, until a view of the thread attaches.
pub const PENDING_OPENS: ListSetting<PendingOpen> = ListSetting::new("pendingOpens");

/// The MCP servers, as the host's vault makes them (secrets sealed): the engine reads only
/// its id, whether it is on and the tools switched off.
pub const MCP_SERVERS: Setting<Vec<Value>> = Setting::new("mcpServers");
/// The last good catalog of each server.
pub const MCP_CATALOGS: Setting<Vec<StoredCatalog>> = Setting::new("mcpCatalogs");

/// One tool of a server's catalog as the host's MCP client listed it (already checked against
/// its budgets and named for the model).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct McpCatalogTool {
    /// The name the model calls (`mcp__{server}__{tool}`).
    pub exposed_name: String,
    /// The server's name for it.
    pub name: String,
    /// Its title (the name when it has none).
    pub title: String,
    /// What it does, as the server says.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
}

impl McpCatalogTool {
    /// Characters its spec costs in every model call: name, description (as offered, at most
    /// 1,000 characters) and argument schema, plus the spec's own keys.
    pub fn offered_chars(&self) -> usize {
        const SPEC_KEYS: usize = 40;
        let description = self.description.chars().count().min(1_000);
        self.exposed_name.len() + description + self.input_schema.to_string().len() + SPEC_KEYS
    }
}

/// A server's last good catalog, as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StoredCatalog {
    /// The server.
    pub server: String,
    /// Its tools.
    pub tools: Vec<McpCatalogTool>,
}

/// An MCP server's OAuth sign-in, as the host's vault sealed it (tokens never in the clear).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StoredCredentials {
    /// The server.
    pub server: String,
    /// The sealed credentials.
    pub sealed: Value,
}

/// Every MCP server's OAuth sign-in.
pub const MCP_CREDENTIALS: Setting<Vec<StoredCredentials>> = Setting::new("mcpCredentials");

/// An open waiting for a view of its thread.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PendingOpen {
    /// The thread whose agent asked.
    pub thread_id: String,
    /// The URL, or the artifact's filename.
    pub target: String,
    /// The title to show.
    pub title: String,
    /// When it was asked for.
    pub queued_at_ms: u64,
    /// Whether `target` is an artifact of the thread rather than a URL (absent in opens queued
    /// before artifacts could be opened).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub artifact: bool,
}

/// The agent's memory: notes kept across chats (`memory_read`, `memory_write`).
pub const MEMORY: ListSetting<MemoryNote> = ListSetting::new("memory");

/// The most notes the memory keeps; a write past it is refused until one is deleted.
pub const MEMORY_MAX_NOTES: usize = 100;

/// A note of the agent's memory.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MemoryNote {
    /// What it is saved under (1 to 100 characters, trimmed).
    pub key: String,
    /// The note (at most 4,000 characters).
    pub value: String,
    /// When it was last written.
    pub updated_at_ms: u64,
}

/// What putting a note did to the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotePut {
    /// A note under a new key.
    Added,
    /// The note under that key, replaced in place.
    Replaced,
    /// Nothing: a new key and already [`MEMORY_MAX_NOTES`] notes.
    Full,
}

/// Puts `value` under `key` (one rule for the agent's writes and the user's): a key in use is
/// replaced in place, a new one added unless the memory is full.
pub fn put_note(notes: &mut Vec<MemoryNote>, key: &str, value: &str, now_ms: u64) -> NotePut {
    if let Some(note) = notes.iter_mut().find(|note| note.key == key) {
        note.value = value.to_owned();
        note.updated_at_ms = now_ms;
        return NotePut::Replaced;
    }
    if notes.len() >= MEMORY_MAX_NOTES {
        return NotePut::Full;
    }
    notes.push(MemoryNote { key: key.to_owned(), value: value.to_owned(), updated_at_ms: now_ms });
    NotePut::Added
}

/// Deletes the note under `key`; whether there was one.
pub fn remove_note(notes: &mut Vec<MemoryNote>, key: &str) -> bool {
    let before = notes.len();
    notes.retain(|note| note.key != key);
    notes.len() != before
}

/// A setting decoded as `T`, or the default when unset or unreadable.
pub async fn read_or_default<T: Serialize + DeserializeOwned + Default>(
    store: &impl Store,
    setting: Setting<T>,
) -> Result<T, StoreError> {
    Ok(setting.read(store).await?.unwrap_or_default())
}

/// The global permission policy.
pub async fn policy(store: &impl Store) -> Result<PermissionPolicy, StoreError> {
    Ok(PERMISSION_POLICY.read(store).await?.unwrap_or(PermissionPolicy::Untrusted))
}

/// The turn token budget; `None` is unlimited.
pub async fn token_budget(store: &impl Store) -> Result<Option<u64>, StoreError> {
    Ok(TURN_TOKEN_BUDGET.read(store).await?.flatten())
}

/// A verdict as stored in a rule.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StoredVerdict {
    /// Runs without asking.
    Allow,
    /// Always asks.
    Ask,
    /// Never runs.
    Deny,
}

/// Who made a stored rule.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StoredAuthor {
    /// The user, in settings (or seeded for every profile).
    User,
    /// "Accept for this site" on an approval.
    Approval,
    /// A plugin.
    Plugin,
}

/// A permission rule as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StoredRule {
    /// Stable id.
    pub id: String,
    /// Tool pattern: `*`, a name, `prefix*` or `category:X`.
    pub tool: String,
    /// Origin pattern: `*`, an exact origin or `*.domain`.
    pub origin: String,
    /// What it decides.
    pub verdict: StoredVerdict,
    /// Who made it.
    pub source: StoredAuthor,
    /// Creation time.
    pub created_at_ms: u64,
}

impl From<PermissionVerdict> for StoredVerdict {
    fn from(verdict: PermissionVerdict) -> Self {
        match verdict {
            PermissionVerdict::Allow => StoredVerdict::Allow,
            PermissionVerdict::Ask => StoredVerdict::Ask,
            PermissionVerdict::Deny => StoredVerdict::Deny,
        }
    }
}

impl StoredRule {
    /// The rule as the settings page shows it.
    pub fn view(&self) -> PermissionRuleView {
        PermissionRuleView {
            id: self.id.clone(),
            tool: self.tool.clone(),
            origin: self.origin.clone(),
            verdict: match self.verdict {
                StoredVerdict::Allow => PermissionVerdict::Allow,
                StoredVerdict::Ask => PermissionVerdict::Ask,
                StoredVerdict::Deny => PermissionVerdict::Deny,
            },
            source: match self.source {
                StoredAuthor::User => RuleAuthor::User,
                StoredAuthor::Approval => RuleAuthor::Approval,
                StoredAuthor::Plugin => RuleAuthor::Plugin,
            },
            created_at_ms: self.created_at_ms,
        }
    }

    /// The rule the gatekeeper applies; `None` for patterns it cannot read.
    pub fn parse(&self) -> Option<Rule> {
        let verdict = match self.verdict {
            StoredVerdict::Allow => RuleVerdict::Allow,
            StoredVerdict::Ask => RuleVerdict::Ask,
            StoredVerdict::Deny => RuleVerdict::Deny,
        };
        let source = match self.source {
            StoredAuthor::User => RuleSource::User,
            StoredAuthor::Approval => RuleSource::Approval,
            StoredAuthor::Plugin => RuleSource::Plugin,
        };
        Rule::parse(&self.id, &self.tool, &self.origin, verdict, source, self.created_at_ms).ok()
    }
}

/// The rules every profile starts with (deleting one keeps it deleted).
pub fn seeded_rules() -> Vec<StoredRule> {
    vec![StoredRule {
        id: "seed-deny-run-javascript".into(),
        tool: "run_javascript".into(),
        origin: "*".into(),
        verdict: StoredVerdict::Deny,
        source: StoredAuthor::User,
        created_at_ms: 0,
    }]
}

/// "Accept for this session" grants: `"{tool} {origin}"` keys per thread, valid for one browser
/// session. Grants of an earlier session are ignored, and revoking a site's access in the
/// browser drops every grant for it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase")]
pub struct SessionGrants {
    /// The browser session the grants belong to.
    pub session: String,
    /// Grant keys by thread, each thread's sorted and distinct (stored as a JSON array, as a
    /// set was; a `BTreeSet<String>` compiled a B-tree of its own into the engine wasm), stored
    /// as an object by thread id as a `BTreeMap` was.
    #[serde(with = "by_thread")]
    pub threads: SortedMap<ThreadId, Vec<String>>,
}

/// [`SessionGrants::threads`] as a JSON object, read through a JSON value instead of a map
/// decoder of its own.
mod by_thread {
    use panelot_protocol::ThreadId;
    use serde::Deserialize;
    use serde::Deserializer;
    use serde::Serializer;
    use serde::de::Error as _;
    use serde_json::Value;

    use crate::sorted_map::SortedMap;

    pub(super) fn serialize<S: Serializer>(
        threads: &SortedMap<ThreadId, Vec<String>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_map(threads.iter())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<SortedMap<ThreadId, Vec<String>>, D::Error> {
        let Value::Object(fields) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom("invalid type: expected a map"));
        };
        let mut threads = SortedMap::new();
        for (thread, keys) in fields {
            let thread = ThreadId::new(thread).map_err(D::Error::custom)?;
            let keys = panelot_protocol::from_value(keys).map_err(D::Error::custom)?;
            threads.insert(thread, keys);
        }
        Ok(threads)
    }
}

impl SessionGrants {
    /// The grants of `thread` in `session`.
    pub fn of(&self, session: &str, thread: &ThreadId) -> Vec<String> {
        if self.session != session {
            return Vec::new();
        }
        self.threads.get(thread).cloned().unwrap_or_default()
    }

    /// Adds a grant for `thread` in `session`, dropping the grants of an older session.
    pub fn grant(&mut self, session: &str, thread: &ThreadId, key: String) {
        if self.session != session {
            *self = SessionGrants { session: session.to_owned(), threads: SortedMap::new() };
        }
        let keys = self.threads.get_or_insert_with(thread.clone(), Vec::new);
        if let Err(at) = keys.binary_search(&key) {
            keys.insert(at, key);
        }
    }

    /// Drops every grant whose origin is one of `origins` (their access was revoked).
    pub fn revoke(&mut self, origins: &[Origin]) -> bool {
        let mut changed = false;
        for keys in self.threads.values_mut() {
            let before = keys.len();
            keys.retain(|key| {
                let origin = key.split_once(' ').map(|(_, origin)| origin);
                !origin
                    .and_then(|origin| Origin::parse(origin).ok())
                    .is_some_and(|origin| origins.contains(&origin))
            });
            changed |= keys.len() != before;
        }
        changed
    }

    /// Forgets a deleted thread.
    pub fn forget(&mut self, thread: &ThreadId) -> bool {
        self.threads.remove(thread).is_some()
    }
}

/// Everything the gatekeeper reads for one thread.
#[derive(Debug, Clone)]
pub struct PermissionState {
    /// Every rule in force.
    pub rules: Vec<Rule>,
    /// The denylist.
    pub sensitive: SensitiveOrigins,
    /// The thread's session grants.
    pub grants: Vec<String>,
}

impl PermissionState {
    /// Loads the permission state of `thread` in browser session `session`.
    pub async fn load(
        store: &impl Store,
        session: &str,
        thread: &ThreadId,
    ) -> Result<PermissionState, StoreError> {
        let rules = RULES.read(store).await?.iter().filter_map(StoredRule::parse).collect();
        let user_sensitive: Vec<OriginPattern> = read_or_default(store, SENSITIVE_ORIGINS)
            .await?
            .iter()
            .filter_map(|pattern| OriginPattern::parse(pattern).ok())
            .collect();
        let grants = read_or_default(store, SESSION_GRANTS).await?.of(session, thread);
        Ok(PermissionState {
            rules,
            sensitive: SensitiveOrigins::with_user(user_sensitive),
            grants,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(n: u32) -> ThreadId {
        ThreadId::new(format!("t-{n}")).unwrap()
    }

    #[test]
    fn session_grants_end_with_their_session_and_with_revoked_access() {
        let mut grants = SessionGrants::default();
        grants.grant("s1", &thread(1), "click https://shop.test".into());
        grants.grant("s1", &thread(1), "type https://mail.test".into());
        assert_eq!(grants.of("s1", &thread(1)).len(), 2);
        assert!(grants.of("s2", &thread(1)).is_empty(), "another browser session");
        assert!(grants.of("s1", &thread(2)).is_empty(), "another thread");
        assert!(grants.revoke(&[Origin::parse("https://shop.test").unwrap()]));
        assert_eq!(
            grants.of("s1", &thread(1)).into_iter().collect::<Vec<_>>(),
            ["type https://mail.test"]
        );
        grants.grant("s2", &thread(1), "click https://shop.test".into());
        assert_eq!(grants.threads.len(), 1, "a new session drops the old grants");
        assert!(grants.of("s1", &thread(1)).is_empty());
    }

    #[test]
    fn session_grants_are_stored_as_an_object_of_sorted_distinct_keys() {
        let mut grants = SessionGrants::default();
        grants.grant("s1", &thread(2), "b https://b.test".into());
        grants.grant("s1", &thread(1), "z https://z.test".into());
        grants.grant("s1", &thread(1), "a https://a.test".into());
        grants.grant("s1", &thread(1), "a https://a.test".into());
        let value = panelot_protocol::to_value(&grants).unwrap();
        let expected = serde_json::json!({"session": "s1", "threads": {
            "t-1": ["a https://a.test", "z https://z.test"],
            "t-2": ["b https://b.test"],
        }});
        assert_eq!(value, expected);
        let back: SessionGrants = panelot_protocol::from_value(value).unwrap();
        assert_eq!(back, grants);
        let bad_thread = serde_json::json!({"session": "s1", "threads": {"": []}});
        assert!(panelot_protocol::from_value::<SessionGrants>(bad_thread).is_err());
        let not_a_map = serde_json::json!({"session": "s1", "threads": []});
        assert!(panelot_protocol::from_value::<SessionGrants>(not_a_map).is_err());
    }

    #[test]
    fn stored_rules_keep_their_json_form() {
        let rule = StoredRule {
            id: "r1".into(),
            tool: "click".into(),
            origin: "https://shop.test".into(),
            verdict: StoredVerdict::Allow,
            source: StoredAuthor::Approval,
            created_at_ms: 5,
        };
        let json = serde_json::to_value(&rule).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"id": "r1", "tool": "click", "origin": "https://shop.test",
                "verdict": "allow", "source": "approval", "createdAtMs": 5})
        );
        assert!(rule.parse().is_some());
    }
}
