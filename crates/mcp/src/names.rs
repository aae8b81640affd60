//! Tool names as models see them: `mcp__{server}__{tool}`.
//!
//! Providers accept function names of `[A-Za-z0-9_-]` up to 64 characters (OpenAI's limit, the
//! tightest), while MCP tool names may be up to 128 characters and contain `.`. The mapping:
//!
//! * A server is named by a [`ServerSlug`]: 1 to [`MAX_SLUG_LEN`] characters of `[a-z0-9-]`,
//!   starting with a letter or digit. It has no `_`, so the first `__` after `mcp__` always ends
//!   it and [`split_tool_name`] is unambiguous.
//! * A tool whose name is already `[A-Za-z0-9_-]` and fits in the 64 characters keeps its name.
//! * Any other tool name is escaped: every other character becomes `_`, the result is cut to
//!   fit, and `_` plus 8 hex digits of a hash of the original name are appended, so names that
//!   escape alike (`a.b`, `a b`) still differ from each other and from a plain `a_b`. The engine keeps the map from
//!   the exposed name back to the server's name (see [`crate::ToolCatalog`]), and a collision
//!   that remains is reported as a rejected tool rather than silently shadowing another.

/// The prefix every MCP tool name starts with (the gatekeeper's MCP category).
pub const MCP_PREFIX: &str = "mcp__";

/// The longest function name providers accept.
pub const MAX_EXPOSED_LEN: usize = 64;

/// The longest server slug; leaves 64 - 5 - 20 - 2 = 37 characters for the tool.
pub const MAX_SLUG_LEN: usize = 20;

/// The longest tool name the MCP schema allows (2025-11-25 "Tool names"); longer is refused.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// A server's name inside tool names: `[a-z0-9][a-z0-9-]{0,19}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerSlug(String);

/// A slug that breaks the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a server id must be 1 to {MAX_SLUG_LEN} lowercase letters, digits or '-', starting with a \
     letter or digit (got {0:?})"
)]
pub struct SlugError(pub String);

impl ServerSlug {
    /// Checks `slug` against the rule.
    pub fn new(slug: &str) -> Result<ServerSlug, SlugError> {
        let valid = !slug.is_empty()
            && slug.len() <= MAX_SLUG_LEN
            && !slug.starts_with('-')
            && slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if valid { Ok(ServerSlug(slug.to_owned())) } else { Err(SlugError(slug.to_owned())) }
    }

    /// The slug.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ServerSlug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The name a model sees for `tool` of `server` (see the module docs for the rule).
pub fn exposed_tool_name(server: &ServerSlug, tool: &str) -> String {
    let prefix = format!("{MCP_PREFIX}{server}__");
    let room = MAX_EXPOSED_LEN - prefix.len();
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !tool.is_empty() && tool.len() <= room && tool.chars().all(safe) {
        return format!("{prefix}{tool}");
    }
    let suffix = format!("_{:08x}", fnv1a(tool.as_bytes()));
    let kept = room - suffix.len();
    let escaped: String = tool.chars().map(|c| if safe(c) { c } else { '_' }).take(kept).collect();
    format!("{prefix}{escaped}{suffix}")
}

/// The server slug and the (possibly escaped) tool part of an exposed name, or `None` when it
/// is not an MCP tool name.
pub fn split_tool_name(exposed: &str) -> Option<(&str, &str)> {
    let rest = exposed.strip_prefix(MCP_PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    (ServerSlug::new(server).is_ok() && !tool.is_empty()).then_some((server, tool))
}

/// FNV-1a, 32 bits: stable across builds and platforms (unlike `DefaultHasher`), which matters
/// because exposed names are stored in threads and rules.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
