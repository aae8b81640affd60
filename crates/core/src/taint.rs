//! Taint tracking: remember the untrusted values the model has read on a thread, and say which
//! call parameters reuse them.
//!
//! A page or an MCP server can put text in front of the model; if the model then navigates to
//! a URL from that text, downloads it, or types it into another site, the page chose the
//! action. [`TaintLedger`] records the values worth tracking from such text (URLs and their
//! hosts, email addresses, host names, token-like strings) and the text itself as windows of
//! three words (so an address or a sentence read on one site and typed into another is
//! recognised too), and [`TaintLedger::taint_of`] turns a call's parameters into the
//! [`TaintSource`]s that `GateInput::taint` takes, so the gatekeeper can ask even under `auto`
//! and the card can show where the value came from.
//!
//! Pure and bounded: at most [`MAX_ENTRIES`] values of at most [`MAX_VALUE_LEN`] bytes each and
//! [`MAX_PHRASE_WINDOWS`] word windows, least recently seen evicted first, serializable into the
//! run record. Values match case-insensitively and whole (a recorded value must sit in a
//! parameter between non-alphanumeric boundaries), so `a.io` does not taint `data.io`; a
//! parameter of at least [`MIN_PHRASE_WORDS`] words matches page text when every window of it
//! was read on one source. It catches reuse, not rewriting: a model that spells a URL
//! differently escapes it, which is why taint only adds questions and never removes any.

use std::collections::VecDeque;

use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::TaintSource;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use crate::gatekeeper::Origin;
use crate::gatekeeper::contains_email;

/// Most values a ledger holds; older ones are evicted first.
pub const MAX_ENTRIES: usize = 2048;
/// Longest recorded value in bytes; longer values keep their prefix, which still matches a
/// parameter that contains the whole value.
pub const MAX_VALUE_LEN: usize = 512;
/// Shortest token-like string worth recording; shorter ones collide with ordinary text.
pub const MIN_TOKEN_LEN: usize = 8;
/// Most values remembered from the user's own messages (see [`TaintLedger::record_user`]).
pub const MAX_USER_VALUES: usize = 256;
/// Most three-word windows of page text a ledger remembers; the least recently read source's
/// go first.
pub const MAX_PHRASE_WINDOWS: usize = 4096;
/// Most windows remembered from the user's own messages.
pub const MAX_USER_WINDOWS: usize = 1024;
/// Fewest words a parameter needs to be matched against page text, and fewest characters:
/// shorter text (a name, "yes", a city) is too common to say where it came from.
pub const MIN_PHRASE_WORDS: usize = 3;
/// See [`MIN_PHRASE_WORDS`].
pub const MIN_PHRASE_CHARS: usize = 12;
/// Words in one window.
const WINDOW_WORDS: usize = 3;
/// Most sources reported for one parameter; enough to show on a card and to find one from
/// another origin, bounded so a value seen on many pages cannot flood the request.
const MAX_SOURCES_PER_PARAM: usize = 8;

/// One recorded value and where it was seen.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaintEntry {
    /// The value, lowercased and cut to [`MAX_VALUE_LEN`].
    pub value: String,
    /// Page or MCP.
    pub provenance: Provenance,
    /// The page's origin (`https://mail.test`) or the MCP server (`mcp:web`).
    pub source: String,
}

/// The untrusted values a run has seen. Serializes as `{entries, userValues}`; bounds are
/// enforced again when read back, so a stored record cannot grow it.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
#[serde(from = "LedgerWire", into = "LedgerWire")]
pub struct TaintLedger {
    /// Oldest first; re-seeing a value moves it to the back.
    entries: VecDeque<TaintEntry>,
    /// Values the user wrote themselves; a recorded value equal to one of them is the user's
    /// choice, not the page's, and taints nothing.
    user_values: VecDeque<String>,
    /// Page text as word windows, by source, least recently read first.
    phrases: VecDeque<PhraseSource>,
    /// Windows of the user's own messages: text the user wrote is theirs wherever it is typed.
    user_windows: VecDeque<u32>,
}

/// The text read from one source, as hashed three-word windows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PhraseSource {
    provenance: Provenance,
    source: String,
    /// Sorted and distinct (a set searched by binary search: a `BTreeSet<u32>` compiled a B-tree
    /// of its own into the engine wasm for this alone).
    windows: Vec<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LedgerWire {
    entries: Vec<TaintEntry>,
    #[serde(default)]
    user_values: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    phrases: Vec<PhraseWire>,
    /// Hex, eight digits per window.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    user_windows: String,
}

/// A [`PhraseSource`] as stored: its windows in hex, eight digits each.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PhraseWire {
    provenance: Provenance,
    source: String,
    windows: String,
}

impl From<LedgerWire> for TaintLedger {
    fn from(wire: LedgerWire) -> TaintLedger {
        let mut ledger = TaintLedger::default();
        for entry in wire.entries {
            if is_untrusted(entry.provenance) {
                ledger.push(cut(&entry.value.to_lowercase()), entry.provenance, entry.source);
            }
        }
        for value in wire.user_values {
            ledger.push_user(cut(&value.to_lowercase()));
        }
        for phrase in wire.phrases {
            if is_untrusted(phrase.provenance) {
                let windows: Vec<u32> = from_hex(&phrase.windows).collect();
                ledger.push_phrases(windows, phrase.provenance, phrase.source);
            }
        }
        for window in from_hex(&wire.user_windows) {
            ledger.push_user_window(window);
        }
        ledger
    }
}

impl From<TaintLedger> for LedgerWire {
    fn from(ledger: TaintLedger) -> LedgerWire {
        LedgerWire {
            entries: ledger.entries.into(),
            user_values: ledger.user_values.into(),
            phrases: ledger
                .phrases
                .into_iter()
                .map(|phrase| PhraseWire {
                    provenance: phrase.provenance,
                    source: phrase.source,
                    windows: to_hex(phrase.windows.iter().copied()),
                })
                .collect(),
            user_windows: to_hex(ledger.user_windows.iter().copied()),
        }
    }
}

impl TaintLedger {
    /// An empty ledger.
    pub fn new() -> TaintLedger {
        TaintLedger::default()
    }

    /// Records what the model saw in `text`, from a tool result of page or MCP provenance: its
    /// trackable values and its word windows. `source` is the page URL or origin (normalized
    /// to the origin when it parses) or the MCP server id. Text of any other provenance is
    /// ignored: the user, the engine's own tools, imports and plugins are not attackers here.
    pub fn record(&mut self, text: &str, provenance: Provenance, source: &str) {
        if !is_untrusted(provenance) {
            return;
        }
        let source = source_of(provenance, source);
        self.record_values(text, provenance, &source);
        let mut windows = Vec::new();
        for window in windows_of(&words(text)) {
            if windows.len() == MAX_PHRASE_WINDOWS {
                break;
            }
            windows.push(window);
        }
        self.push_phrases(windows, provenance, source);
    }

    /// Records only the trackable values of `text`.
    fn record_values(&mut self, text: &str, provenance: Provenance, source: &str) {
        if !is_untrusted(provenance) {
            return;
        }
        let source = source_of(provenance, source);
        // More candidates than the ledger holds would only evict each other.
        for value in candidates(text).into_iter().take(MAX_ENTRIES) {
            self.push(value, provenance, source.clone());
        }
    }

    /// Records every string inside a JSON tool result (an MCP result, a structured page read),
    /// as [`TaintLedger::record`] does for text.
    pub fn record_value(&mut self, value: &Value, provenance: Provenance, source: &str) {
        let mut texts = Vec::new();
        strings(value, "", &mut |_, text| texts.push(text.to_owned()));
        self.record(&texts.join("\n"), provenance, source);
    }

    /// Remembers the values of a message the user wrote, so the same value later read on a
    /// page (the user asked for `https://news.test`, a page links to it too) does not count as
    /// the page's choice. Only exact values are exempt: a longer page URL that merely contains
    /// the user's host stays tainted.
    pub fn record_user(&mut self, text: &str) {
        for value in candidates(text) {
            self.push_user(value);
        }
        for window in windows_of(&words(text)) {
            self.push_user_window(window);
        }
    }

    /// The parameters of a call that reuse a recorded value, by JSON path without a leading
    /// slash (`url`, `actions/0/params/text`, `values/1`), with every source (most recent
    /// first, at most a few) that value was seen at. This is what `GateInput::taint` takes.
    pub fn taint_of(&self, params: &Value) -> Vec<TaintSource> {
        let mut out = Vec::new();
        strings(params, "", &mut |path, text| {
            let lower = text.to_lowercase();
            let values = self.entries.iter().rev().filter(|entry| {
                !self.user_values.contains(&entry.value) && contains_value(&lower, &entry.value)
            });
            let values = values.map(|entry| (entry.provenance, &entry.source));
            let phrases = self.phrase_sources(text).map(|it| (it.provenance, &it.source));
            let mut found = 0;
            for (provenance, source) in values.chain(phrases) {
                if found == MAX_SOURCES_PER_PARAM {
                    break;
                }
                let taint =
                    TaintSource { param: path.to_owned(), provenance, source: source.clone() };
                if !out.contains(&taint) {
                    out.push(taint);
                    found += 1;
                }
            }
        });
        out
    }

    /// The sources, most recently read first, whose text holds every window of `text`; none
    /// when `text` is too short to tell or the user wrote it themselves.
    fn phrase_sources<'a>(&'a self, text: &str) -> impl Iterator<Item = &'a PhraseSource> {
        let words = words(text);
        let long_enough = words.len() >= MIN_PHRASE_WORDS
            && words.iter().map(|word| word.chars().count()).sum::<usize>() + words.len()
                > MIN_PHRASE_CHARS;
        let windows: Vec<u32> = if long_enough { windows_of(&words).collect() } else { vec![] };
        let the_users =
            !windows.is_empty() && windows.iter().all(|w| self.user_windows.contains(w));
        let windows = if the_users { Vec::new() } else { windows };
        self.phrases.iter().rev().filter(move |phrase| {
            !windows.is_empty() && windows.iter().all(|w| phrase.windows.binary_search(w).is_ok())
        })
    }

    /// How many values are recorded.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The recorded values, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &TaintEntry> {
        self.entries.iter()
    }

    fn push(&mut self, value: String, provenance: Provenance, source: String) {
        let entry = TaintEntry { value, provenance, source };
        if let Some(idx) = self.entries.iter().position(|it| *it == entry) {
            self.entries.remove(idx);
        }
        self.entries.push_back(entry);
        while self.entries.len() > MAX_ENTRIES {
            self.entries.pop_front();
        }
    }

    /// Adds `windows` (at most [`MAX_PHRASE_WINDOWS`], in the order read) to `source`'s, which
    /// becomes the most recently read; the least recent sources go while over the bound.
    fn push_phrases(&mut self, windows: Vec<u32>, provenance: Provenance, source: String) {
        if windows.is_empty() {
            return;
        }
        let at = self.phrases.iter().position(|p| p.provenance == provenance && p.source == source);
        let old = at.and_then(|idx| self.phrases.remove(idx)).map(|p| p.windows);
        let mut merged: Vec<u32> = Vec::new();
        for window in windows.into_iter().chain(old.into_iter().flatten()) {
            if merged.len() == MAX_PHRASE_WINDOWS {
                break;
            }
            if let Err(at) = merged.binary_search(&window) {
                merged.insert(at, window);
            }
        }
        self.phrases.push_back(PhraseSource { provenance, source, windows: merged });
        let mut total: usize = self.phrases.iter().map(|p| p.windows.len()).sum();
        while total > MAX_PHRASE_WINDOWS {
            let Some(oldest) = self.phrases.pop_front() else { break };
            total -= oldest.windows.len();
        }
    }

    fn push_user_window(&mut self, window: u32) {
        if self.user_windows.contains(&window) {
            return;
        }
        self.user_windows.push_back(window);
        while self.user_windows.len() > MAX_USER_WINDOWS {
            self.user_windows.pop_front();
        }
    }

    fn push_user(&mut self, value: String) {
        if let Some(idx) = self.user_values.iter().position(|it| *it == value) {
            self.user_values.remove(idx);
        }
        self.user_values.push_back(value);
        while self.user_values.len() > MAX_USER_VALUES {
            self.user_values.pop_front();
        }
    }
}

fn is_untrusted(provenance: Provenance) -> bool {
    match provenance {
        Provenance::Page | Provenance::Mcp => true,
        Provenance::User | Provenance::Tool | Provenance::Import | Provenance::Plugin => false,
    }
}

/// Where text of `provenance` came from: a page's origin when `source` parses as a URL.
fn source_of(provenance: Provenance, source: &str) -> String {
    match provenance {
        Provenance::Page => Origin::parse(source).map_or(source.to_owned(), |it| it.to_string()),
        Provenance::Mcp
        | Provenance::User
        | Provenance::Tool
        | Provenance::Import
        | Provenance::Plugin => source.to_owned(),
    }
}

/// The words of `text`, lowercased: runs of letters and digits, and each character of the
/// scripts written without spaces (Chinese, Japanese kana) on its own.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_unspaced(c) || !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if is_unspaced(c) {
                out.push(c.to_string());
            }
        } else {
            word.extend(c.to_lowercase());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether `c` belongs to a script written without spaces between words.
fn is_unspaced(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}')
}

/// The hashed windows of [`WINDOW_WORDS`] consecutive words (FNV-1a over the words and a
/// separator): stable across builds, as the ledger is stored.
fn windows_of(words: &[String]) -> impl Iterator<Item = u32> + '_ {
    words.windows(WINDOW_WORDS).map(|window| {
        let mut hash: u32 = 0x811c_9dc5;
        for word in window {
            for byte in word.bytes().chain([0x1f]) {
                hash ^= u32::from(byte);
                hash = hash.wrapping_mul(0x0100_0193);
            }
        }
        hash
    })
}

fn to_hex(windows: impl Iterator<Item = u32>) -> String {
    windows.map(|window| format!("{window:08x}")).collect()
}

/// The windows of a stored hex string; a malformed piece is skipped, as a bound would cut it.
fn from_hex(text: &str) -> impl Iterator<Item = u32> + '_ {
    text.as_bytes()
        .chunks(8)
        .filter_map(|chunk| u32::from_str_radix(std::str::from_utf8(chunk).ok()?, 16).ok())
}

/// Calls `visit(path, text)` for every string in `value`; paths join keys and indices with
/// `/` and have no leading slash, the form gatekeeper rules read (`actions/0/params/text`).
fn strings(value: &Value, path: &str, visit: &mut dyn FnMut(&str, &str)) {
    let join = |segment: &str| {
        if path.is_empty() { segment.to_owned() } else { format!("{path}/{segment}") }
    };
    match value {
        Value::String(text) => visit(path, text),
        Value::Array(items) => {
            for (idx, item) in items.iter().enumerate() {
                strings(item, &join(&idx.to_string()), visit);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                strings(item, &join(key), visit);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether `value` occurs in `text` with no letter or digit right before or after it.
fn contains_value(text: &str, value: &str) -> bool {
    if value.is_empty() {
        return false;
    }
    text.match_indices(value).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + value.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The values of `text` worth tracking, lowercased, cut and deduplicated, in order: URLs (and
/// their hosts), email addresses, host names with an optional path, and token-like strings.
/// Plain words are left out: the user may well write them too.
fn candidates(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |value: &str| {
        let value = cut(&value.to_lowercase());
        if !value.is_empty() && !out.contains(&value) {
            out.push(value);
        }
    };
    let pieces = text.split(|c: char| c.is_whitespace() || "\"'`<>()[]{}|,;\\".contains(c));
    for piece in pieces {
        let piece = piece.trim_matches(|c: char| ".:!?*".contains(c));
        if let Some(url) = url_in(piece) {
            // Trailing slashes are dropped so `https://a.test/` matches `https://a.test`.
            add(url.trim_end_matches('/'));
            if let Ok(origin) = Origin::parse(url)
                && is_host(&origin.host)
            {
                add(&origin.host);
            }
        } else if contains_email(piece) {
            add(piece.trim_start_matches("mailto:"));
        } else if is_host(piece.split('/').next().unwrap_or_default()) {
            add(piece.trim_end_matches('/'));
        } else if is_token(piece) {
            add(piece);
        }
    }
    out
}

/// The URL starting at the scheme inside `piece` (`href=https://x` gives `https://x`).
fn url_in(piece: &str) -> Option<&str> {
    let sep = piece.find("://")?;
    let start = piece[..sep]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || "+-.".contains(*c))
        .last()
        .map(|(idx, _)| idx)?;
    let url = &piece[start..];
    (url.len() > sep - start + 3).then_some(url)
}

/// Whether `text` is a dotted host name with an alphabetic top-level label (`evil.test`).
fn is_host(text: &str) -> bool {
    let labels: Vec<&str> = text.split('.').collect();
    text.len() >= 4
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Whether `text` looks like an id, code or key rather than a word: long enough, made of the
/// characters such strings use, and holding a digit or a capital after a lowercase letter.
fn is_token(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let shaped = chars.len() >= MIN_TOKEN_LEN
        && chars.iter().all(|c| c.is_ascii_alphanumeric() || "_-+/=~.%".contains(*c));
    let digit = chars.iter().any(char::is_ascii_digit);
    let mixed =
        chars.windows(2).any(|pair| pair[0].is_ascii_lowercase() && pair[1].is_ascii_uppercase());
    shaped && (digit || mixed)
}

/// Cuts `value` to at most [`MAX_VALUE_LEN`] bytes on a character boundary.
fn cut(value: &str) -> String {
    let mut end = value.len().min(MAX_VALUE_LEN);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    value[..end].to_owned()
}

#[cfg(test)]
#[path = "taint_tests.rs"]
mod tests;
