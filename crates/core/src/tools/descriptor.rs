//! What the loop knows about each tool ([`ToolDescriptor`]) and the registry of the tools an
//! engine offers ([`ToolRegistry`]).

use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::ToolLevel;
use panelot_protocol::engine::Trust;

use crate::model::ToolSpec;
use crate::sorted_map::SortedMap;

/// Tools offered only once a thread asks for them with `load_tools` (or the user's settings
/// switch them on), so their specs are not paid on every model call of every turn that never
/// needs them. The names and members of each group are in the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolGroup {
    /// `memory_read`, `memory_write`: notes kept across chats.
    Memory,
    /// `sidebar_open`: offered while the user lets the agent open pages (`agentOpenTools`),
    /// never loaded by the model.
    Opens,
    /// `artifact_create`, `download`, `upload_file`: documents kept with the chat, files saved
    /// to disk, files the user attached put on a page's file input.
    Files,
    /// `watch_page`, `schedule_resume`: the run waits for a page or a time.
    Wait,
}

/// Whether a tool changes anything outside the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolEffect {
    /// Only reads.
    Read,
    /// May change a page, a tab, a file or a remote system.
    Write,
}

/// What recovery may do with a call whose outcome a restart made unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryClass {
    /// Run it again.
    RetrySafe,
    /// Ask the user, after they had a look (`paused_uncertain`).
    InspectFirst,
    /// Never run it again without an explicit retry (`paused_uncertain`).
    NeverRetry,
}

/// Everything the loop knows about a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDescriptor {
    /// Name the model calls it by.
    pub name: String,
    /// Short label for cards.
    pub label: String,
    /// What it does, when to use it, what to do when it fails.
    pub description: String,
    /// JSON Schema of its parameters (the subset [`crate::tools::validate_params`] checks).
    pub parameters: serde_json::Value,
    /// Tool family.
    pub level: ToolLevel,
    /// Read or write.
    pub effect: ToolEffect,
    /// What recovery may do.
    pub recovery: RecoveryClass,
    /// Whether its results may be followed as instructions.
    pub result_trust: Trust,
    /// Who produces its results.
    pub result_provenance: Provenance,
    /// The group a thread loads to be offered it; `None` when every call offers it.
    pub group: Option<ToolGroup>,
}

impl ToolDescriptor {
    /// A descriptor with the defaults of its level and effect: reads are retry-safe and writes
    /// never retried; builtin results are trusted, everything else is untrusted page or MCP
    /// content.
    pub fn new(
        name: &str,
        description: &str,
        parameters: serde_json::Value,
        level: ToolLevel,
        effect: ToolEffect,
    ) -> Self {
        let recovery = match (level, effect) {
            (ToolLevel::Mcp, _) | (_, ToolEffect::Write) => RecoveryClass::NeverRetry,
            (_, ToolEffect::Read) => RecoveryClass::RetrySafe,
        };
        let (result_trust, result_provenance) = match level {
            ToolLevel::Builtin => (Trust::Trusted, Provenance::Tool),
            ToolLevel::Mcp => (Trust::Untrusted, Provenance::Mcp),
            ToolLevel::L0 | ToolLevel::L1 | ToolLevel::L2 => (Trust::Untrusted, Provenance::Page),
        };
        ToolDescriptor {
            name: name.to_owned(),
            label: name.replace('_', " "),
            description: description.to_owned(),
            parameters,
            level,
            effect,
            recovery,
            result_trust,
            result_provenance,
            group: None,
        }
    }

    /// What the model is offered: the schema without the keywords only validation needs
    /// (lengths, ranges, closed objects), since every spec is paid for on every model call and
    /// a call that breaks them gets an error that names the rule.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: offered_schema(&self.parameters),
        }
    }
}

/// Keywords [`crate::tools::validate_params`] enforces that the model does not need to read.
const VALIDATION_ONLY: &[&str] =
    &["additionalProperties", "minLength", "maxLength", "minimum", "maximum", "maxItems"];

fn offered_schema(schema: &serde_json::Value) -> serde_json::Value {
    use serde_json::Map;
    use serde_json::Value;
    // The maps are filled by `insert` rather than `collect`: collecting into a map compiles a
    // stable sort of its pairs for each call site (~2.5 KB of engine wasm apiece).
    match schema {
        Value::Object(map) => {
            let mut offered = Map::new();
            for (key, value) in map {
                let empty_required =
                    key.as_str() == "required" && value.as_array().is_some_and(Vec::is_empty);
                if VALIDATION_ONLY.contains(&key.as_str()) || empty_required {
                    continue;
                }
                // Under `properties` the keys are parameter names, never keywords.
                let value = match (key.as_str(), value) {
                    ("properties", Value::Object(props)) => {
                        let mut params = Map::new();
                        for (name, param) in props {
                            params.insert(name.clone(), offered_schema(param));
                        }
                        Value::Object(params)
                    }
                    _ => offered_schema(value),
                };
                offered.insert(key.clone(), value);
            }
            Value::Object(offered)
        }
        Value::Array(items) => Value::Array(items.iter().map(offered_schema).collect()),
        other => other.clone(),
    }
}

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Two tools with one name.
    #[error("tool `{0}` is registered twice")]
    Duplicate(String),
    /// A name providers would refuse.
    #[error("tool name `{0}` must be 1 to 64 characters of a-z, A-Z, 0-9, `_` or `-`")]
    BadName(String),
}

/// The tools of an engine, by name.
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: SortedMap<String, ToolDescriptor>,
    /// Names of the tools [`ToolRegistry::replace_dynamic`] added.
    dynamic: Vec<String>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    pub fn register(&mut self, tool: ToolDescriptor) -> Result<(), RegistryError> {
        let valid = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(RegistryError::BadName(tool.name));
        }
        if self.tools.contains_key(&tool.name) {
            return Err(RegistryError::Duplicate(tool.name));
        }
        self.tools.insert(tool.name.clone(), tool);
        Ok(())
    }

    /// Replaces the tools added at run time (MCP catalogs) by `tools`; the host's own stay. A
    /// tool whose name is taken or invalid is left out, with the reason.
    pub fn replace_dynamic(&mut self, tools: Vec<ToolDescriptor>) -> Vec<RegistryError> {
        for name in std::mem::take(&mut self.dynamic) {
            self.tools.remove(&name);
        }
        let mut refused = Vec::new();
        for tool in tools {
            let name = tool.name.clone();
            match self.register(tool) {
                Ok(()) => self.dynamic.push(name),
                Err(err) => refused.push(err),
            }
        }
        refused
    }

    /// A tool by name.
    pub fn get(&self, name: &str) -> Option<&ToolDescriptor> {
        self.tools.get(name)
    }

    /// What the model is offered: every tool of an enabled level ([`DEFAULT_LEVELS`] when
    /// `levels` is `None`) outside groups or in a `loaded` one, in name order so the prompt-cache
    /// prefix stays stable.
    pub fn specs(&self, levels: Option<&[ToolLevel]>, loaded: &[ToolGroup]) -> Vec<ToolSpec> {
        self.tools
            .values()
            .filter(|t| offered(t.level, levels))
            .filter(|t| t.group.is_none_or(|group| loaded.contains(&group)))
            .map(ToolDescriptor::spec)
            .collect()
    }
}

/// Levels offered when a turn names none: the debugger (L2) is opt-in, since it shows Chrome's
/// debugging bar, acts with trusted input and its specs would be paid on every call.
pub const DEFAULT_LEVELS: [ToolLevel; 4] =
    [ToolLevel::L0, ToolLevel::L1, ToolLevel::Mcp, ToolLevel::Builtin];

/// Whether a tool of `level` is offered under `levels` (see [`ToolRegistry::specs`]).
pub fn offered(level: ToolLevel, levels: Option<&[ToolLevel]>) -> bool {
    levels.unwrap_or(&DEFAULT_LEVELS).contains(&level)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::validate_params;

    #[test]
    fn defaults_follow_level_and_effect() {
        let read = ToolDescriptor::new("snapshot", "d", json!({}), ToolLevel::L1, ToolEffect::Read);
        assert_eq!(read.recovery, RecoveryClass::RetrySafe);
        assert_eq!(read.result_trust, Trust::Untrusted);
        let write = ToolDescriptor::new("click", "d", json!({}), ToolLevel::L1, ToolEffect::Write);
        assert_eq!(write.recovery, RecoveryClass::NeverRetry);
        let mcp = ToolDescriptor::new("search", "d", json!({}), ToolLevel::Mcp, ToolEffect::Read);
        assert_eq!(
            (mcp.recovery, mcp.result_provenance),
            (RecoveryClass::NeverRetry, Provenance::Mcp)
        );
        let builtin =
            ToolDescriptor::new("note", "d", json!({}), ToolLevel::Builtin, ToolEffect::Read);
        assert_eq!(builtin.result_trust, Trust::Trusted);
    }

    #[test]
    fn registry_refuses_duplicates_and_bad_names_and_filters_levels() {
        let mut registry = ToolRegistry::new();
        let tool =
            |name: &str, level| ToolDescriptor::new(name, "d", json!({}), level, ToolEffect::Read);
        registry.register(tool("b_tab", ToolLevel::L0)).unwrap();
        registry.register(tool("a_page", ToolLevel::L1)).unwrap();
        assert_eq!(
            registry.register(tool("a_page", ToolLevel::L1)),
            Err(RegistryError::Duplicate("a_page".into()))
        );
        assert!(matches!(
            registry.register(tool("has space", ToolLevel::L1)),
            Err(RegistryError::BadName(_))
        ));
        let names = |specs: Vec<ToolSpec>| specs.into_iter().map(|s| s.name).collect::<Vec<_>>();
        registry.register(tool("c_debug", ToolLevel::L2)).unwrap();
        assert_eq!(names(registry.specs(None, &[])), ["a_page", "b_tab"], "L2 only when asked for");
        assert_eq!(names(registry.specs(Some(&[ToolLevel::L0]), &[])), ["b_tab"]);
        assert_eq!(names(registry.specs(Some(&[ToolLevel::L2]), &[])), ["c_debug"]);
    }

    #[test]
    fn offered_specs_drop_validation_keywords_but_keep_parameter_names() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "required": [],
            "properties": {
                "maxLength": {"type": "integer", "minimum": 1, "description": "a parameter"},
                "mode": {"type": "string", "enum": ["a", "b"], "maxLength": 9},
                "items": {"type": "array", "maxItems": 3, "items": {"type": "string"}}
            }
        });
        let tool = ToolDescriptor::new("t", "d", schema, ToolLevel::L1, ToolEffect::Read);
        assert_eq!(
            tool.spec().parameters,
            json!({"type": "object", "properties": {
                "maxLength": {"type": "integer", "description": "a parameter"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "items": {"type": "array", "items": {"type": "string"}}
            }})
        );
        // Validation still uses every rule.
        assert!(validate_params(&tool.parameters, &json!({"maxLength": 0})).is_err());
        assert!(validate_params(&tool.parameters, &json!({"other": 1})).is_err());
    }
}
