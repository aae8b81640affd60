//! Resource budgets checked on every cross-context boundary before any field is validated.
//!
//! A JSON tree cannot hold cycles, so the walk only bounds size and shape: nesting depth, node
//! count, the longest array, the widest object, and the cumulative bytes of text and of binary
//! payloads. Binary payloads travel as base64 strings in fields whose name ends in `Base64`
//! (`dataBase64`) or is `base64`; they count against the binary budget instead of the text one.

use serde_json::Value;

/// Limits of one boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Deepest nesting of arrays and objects (the root container is depth 1).
    pub max_depth: u32,
    /// Most values in the tree, containers and scalars alike.
    pub max_nodes: u64,
    /// Most elements of one array.
    pub max_array_len: u64,
    /// Most keys of one object.
    pub max_object_keys: u64,
    /// Most bytes of strings and object keys, summed.
    pub max_text_bytes: u64,
    /// Most bytes of base64 payload strings, summed.
    pub max_binary_bytes: u64,
    /// Most bytes of the serialized message, checked before parsing.
    pub max_raw_bytes: u64,
}

const MIB: u64 = 1024 * 1024;

impl Budget {
    /// An Op from a UI.
    pub const OP: Budget = Budget {
        max_depth: 64,
        max_nodes: 25_000,
        max_array_len: 8_192,
        max_object_keys: 8_192,
        max_text_bytes: 32 * MIB,
        max_binary_bytes: 32 * MIB,
        max_raw_bytes: 80 * MIB,
    };
    /// The value of an `interaction.response` (bounded, acyclic JSON).
    pub const INTERACTION_VALUE: Budget = Budget {
        max_depth: 32,
        max_nodes: 10_000,
        max_array_len: 4_096,
        max_object_keys: 4_096,
        max_text_bytes: 8 * MIB,
        max_binary_bytes: 0,
        max_raw_bytes: 20 * MIB,
    };
    /// An AgentEvent to a UI; larger than Ops to hold long snapshots and tool results.
    pub const EVENT: Budget = Budget {
        max_depth: 96,
        max_nodes: 250_000,
        max_array_len: 100_000,
        max_object_keys: 16_384,
        max_text_bytes: 128 * MIB,
        max_binary_bytes: 128 * MIB,
        max_raw_bytes: 320 * MIB,
    };
    /// A page-executor request or result.
    pub const CONTENT: Budget = Budget {
        max_depth: 64,
        max_nodes: 150_000,
        max_array_len: 50_000,
        max_object_keys: 16_384,
        max_text_bytes: 64 * MIB,
        max_binary_bytes: 64 * MIB,
        max_raw_bytes: 160 * MIB,
    };
    /// An envelope from an MCP server connection.
    pub const MCP: Budget = Budget {
        max_depth: 64,
        max_nodes: 100_000,
        max_array_len: 10_000,
        max_object_keys: 10_000,
        max_text_bytes: 64 * MIB,
        max_binary_bytes: 64 * MIB,
        max_raw_bytes: 160 * MIB,
    };
}

/// The limit a value broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetLimit {
    /// Nesting depth.
    Depth,
    /// Node count.
    Nodes,
    /// Length of one array.
    ArrayLength,
    /// Keys of one object.
    ObjectKeys,
    /// Cumulative text bytes.
    TextBytes,
    /// Cumulative binary bytes.
    BinaryBytes,
    /// Serialized size.
    RawBytes,
}

impl BudgetLimit {
    fn describe(self) -> &'static str {
        match self {
            BudgetLimit::Depth => "nesting depth",
            BudgetLimit::Nodes => "node count",
            BudgetLimit::ArrayLength => "array length",
            BudgetLimit::ObjectKeys => "object keys",
            BudgetLimit::TextBytes => "text bytes",
            BudgetLimit::BinaryBytes => "binary bytes",
            BudgetLimit::RawBytes => "message bytes",
        }
    }
}

/// A value over its budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} exceeds the limit of {max}", limit.describe())]
pub struct BudgetExceeded {
    /// Which limit.
    pub limit: BudgetLimit,
    /// The limit's value.
    pub max: u64,
}

/// Whether a string under this object key is a base64 payload.
pub(crate) fn is_binary_key(key: &str) -> bool {
    key == "base64" || key.ends_with("Base64")
}

fn exceeded(limit: BudgetLimit, max: u64) -> BudgetExceeded {
    BudgetExceeded { limit, max }
}

/// Checks `value` against `budget` with an explicit stack (no recursion), stopping at the first
/// limit broken.
pub fn check_budget(value: &Value, budget: &Budget) -> Result<(), BudgetExceeded> {
    let mut stack: Vec<(&Value, u32, bool)> = vec![(value, 0, false)];
    let mut n_nodes: u64 = 0;
    let mut text_bytes: u64 = 0;
    let mut binary_bytes: u64 = 0;
    while let Some((value, parent_depth, binary_slot)) = stack.pop() {
        n_nodes += 1;
        if n_nodes > budget.max_nodes {
            return Err(exceeded(BudgetLimit::Nodes, budget.max_nodes));
        }
        match value {
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
            Value::String(text) => {
                let (total, max, limit) = if binary_slot {
                    (&mut binary_bytes, budget.max_binary_bytes, BudgetLimit::BinaryBytes)
                } else {
                    (&mut text_bytes, budget.max_text_bytes, BudgetLimit::TextBytes)
                };
                *total += text.len() as u64;
                if *total > max {
                    return Err(exceeded(limit, max));
                }
            }
            Value::Array(items) => {
                let depth = enter(parent_depth, budget)?;
                if items.len() as u64 > budget.max_array_len {
                    return Err(exceeded(BudgetLimit::ArrayLength, budget.max_array_len));
                }
                stack.extend(items.iter().map(|item| (item, depth, false)));
            }
            Value::Object(fields) => {
                let depth = enter(parent_depth, budget)?;
                if fields.len() as u64 > budget.max_object_keys {
                    return Err(exceeded(BudgetLimit::ObjectKeys, budget.max_object_keys));
                }
                for (key, field) in fields {
                    text_bytes += key.len() as u64;
                    stack.push((field, depth, is_binary_key(key)));
                }
                if text_bytes > budget.max_text_bytes {
                    return Err(exceeded(BudgetLimit::TextBytes, budget.max_text_bytes));
                }
            }
        }
    }
    Ok(())
}

fn enter(parent_depth: u32, budget: &Budget) -> Result<u32, BudgetExceeded> {
    let depth = parent_depth + 1;
    if depth > budget.max_depth {
        return Err(exceeded(BudgetLimit::Depth, u64::from(budget.max_depth)));
    }
    Ok(depth)
}

/// Checks the serialized size of a message before it is parsed.
pub(crate) fn check_raw_size(n_bytes: usize, budget: &Budget) -> Result<(), BudgetExceeded> {
    if n_bytes as u64 > budget.max_raw_bytes {
        return Err(exceeded(BudgetLimit::RawBytes, budget.max_raw_bytes));
    }
    Ok(())
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
