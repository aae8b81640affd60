//! Budgets and the checks every result passes before it leaves the crate: catalogs are built
//! entry by entry (a bad tool is rejected with a reason, the rest stay usable), results are
//! parsed into the typed model with their text counted.

use std::collections::HashSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Budget;
use crate::error::McpError;
use crate::model::CallToolResult;
use crate::model::Content;
use crate::model::GetPromptResult;
use crate::model::PromptMessage;
use crate::model::ResourceContents;
use crate::model::Role;
use crate::model::Tool;
use crate::names::MAX_TOOL_NAME_LEN;
use crate::names::ServerSlug;
use crate::names::exposed_tool_name;

/// Limits on what a server may send. The defaults suit a browser extension: a catalog the size
/// of the largest real servers with room to spare, results a model can still read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    /// Bytes of one JSON-RPC message (a JSON body or one SSE event).
    pub max_message_bytes: usize,
    /// Bytes of text (text blocks, text resources) in one result.
    pub max_result_text_bytes: usize,
    /// Entries of one catalog across all its pages.
    pub max_catalog_entries: usize,
    /// Pages of one listing, so a server handing out cursors forever cannot hold a call.
    pub max_pages: usize,
    /// Bytes of one tool's serialized `inputSchema` (or `outputSchema`); a bigger tool is
    /// rejected, since its schema goes to the model in every request.
    pub max_schema_bytes: usize,
    /// Bytes of a description kept; longer ones are cut at a character boundary.
    pub max_description_bytes: usize,
    /// Bytes of one OAuth document (metadata, registration, token answer): real ones are a few
    /// kilobytes, and they are fetched before the server is trusted.
    pub max_auth_document_bytes: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            max_message_bytes: 4 * 1024 * 1024,
            max_result_text_bytes: 1024 * 1024,
            max_catalog_entries: 10_000,
            max_pages: 100,
            max_schema_bytes: 32 * 1024,
            max_description_bytes: 4 * 1024,
            max_auth_document_bytes: 64 * 1024,
        }
    }
}

/// A server's tools, checked and named for models.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCatalog {
    /// The usable tools, in the server's order.
    pub tools: Vec<CatalogTool>,
    /// Tools left out, with the reason (for the server's status in settings).
    pub rejected: Vec<Rejected>,
}

/// One usable tool.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogTool {
    /// `mcp__{server}__{tool}`, see [`crate::names`].
    pub exposed_name: String,
    /// The tool as the server described it (description possibly cut).
    pub tool: Tool,
}

/// An entry left out of a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Its name as sent (cut to 128 characters), or `?` when it had none.
    pub name: String,
    /// Why, in words.
    pub reason: String,
}

impl ToolCatalog {
    /// The tool a model called by its exposed name.
    pub fn get(&self, exposed_name: &str) -> Option<&CatalogTool> {
        self.tools.iter().find(|entry| entry.exposed_name == exposed_name)
    }
}

/// Builds a catalog from the raw entries of all pages.
pub(crate) fn tool_catalog(server: &ServerSlug, raw: Vec<Value>, budgets: &Budgets) -> ToolCatalog {
    let mut catalog = ToolCatalog::default();
    let mut names = HashSet::new();
    let mut exposed_names = HashSet::new();
    for entry in raw {
        let shown = entry
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| "?".to_owned(), |name| name.chars().take(MAX_TOOL_NAME_LEN).collect());
        let reject = |reason: String| Rejected { name: shown.clone(), reason };
        let tool = match check_tool(entry, budgets) {
            Ok(tool) => tool,
            Err(reason) => {
                catalog.rejected.push(reject(reason));
                continue;
            }
        };
        if !names.insert(tool.name.clone()) {
            catalog.rejected.push(reject("the server lists this name twice".to_owned()));
            continue;
        }
        let exposed_name = exposed_tool_name(server, &tool.name);
        if !exposed_names.insert(exposed_name.clone()) {
            catalog.rejected.push(reject(format!("its model name {exposed_name} is taken")));
            continue;
        }
        catalog.tools.push(CatalogTool { exposed_name, tool });
    }
    catalog
}

fn check_tool(entry: Value, budgets: &Budgets) -> Result<Tool, String> {
    let mut tool: Tool =
        serde_json::from_value(entry).map_err(|err| format!("not a valid tool: {err}"))?;
    if tool.name.is_empty() || tool.name.chars().count() > MAX_TOOL_NAME_LEN {
        return Err(format!("a name must have 1 to {MAX_TOOL_NAME_LEN} characters"));
    }
    if tool.name.chars().any(char::is_control) {
        return Err("the name contains control characters".to_owned());
    }
    if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("its inputSchema is not a JSON Schema of type \"object\"".to_owned());
    }
    for schema in std::iter::once(&tool.input_schema).chain(tool.output_schema.as_ref()) {
        let size = serde_json::to_vec(schema).map_or(usize::MAX, |bytes| bytes.len());
        if size > budgets.max_schema_bytes {
            return Err(format!(
                "its schema has {size} bytes, more than {}",
                budgets.max_schema_bytes
            ));
        }
    }
    if let Some(description) = tool.description.as_mut() {
        cut(description, budgets.max_description_bytes);
    }
    Ok(tool)
}

/// Cuts `text` to at most `max` bytes at a character boundary, marking the cut with `…`.
pub(crate) fn cut(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    // "a long …" reads as a cut word; "a long…" as a cut text.
    text.truncate(text.trim_end().len());
    text.push('…');
}

/// Reads a `tools/call` result.
pub(crate) fn call_result(value: Value, budgets: &Budgets) -> Result<CallToolResult, McpError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Raw {
        #[serde(default)]
        content: Vec<Value>,
        #[serde(default)]
        structured_content: Option<Value>,
        #[serde(default)]
        is_error: bool,
    }
    let raw: Raw = shape(value, "tools/call")?;
    let mut text = TextBudget::new(budgets);
    let content = raw
        .content
        .into_iter()
        .map(|block| content(block, &mut text))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(structured) = &raw.structured_content {
        // Structured output goes to the model as JSON text: count it like text.
        text.add(serde_json::to_string(structured).map_or(usize::MAX, |json| json.len()))?;
    }
    Ok(CallToolResult {
        content,
        structured_content: raw.structured_content,
        is_error: raw.is_error,
    })
}

/// Reads a `prompts/get` result.
pub(crate) fn prompt_result(value: Value, budgets: &Budgets) -> Result<GetPromptResult, McpError> {
    #[derive(serde::Deserialize)]
    struct RawMessage {
        role: Role,
        content: Value,
    }
    #[derive(serde::Deserialize)]
    struct Raw {
        #[serde(default)]
        description: Option<String>,
        messages: Vec<RawMessage>,
    }
    let raw: Raw = shape(value, "prompts/get")?;
    let mut text = TextBudget::new(budgets);
    let messages = raw
        .messages
        .into_iter()
        .map(|message| {
            Ok(PromptMessage { role: message.role, content: content(message.content, &mut text)? })
        })
        .collect::<Result<_, McpError>>()?;
    let mut description = raw.description;
    if let Some(description) = description.as_mut() {
        cut(description, budgets.max_description_bytes);
    }
    Ok(GetPromptResult { description, messages })
}

/// Reads a `resources/read` result.
pub(crate) fn read_result(
    value: Value,
    budgets: &Budgets,
) -> Result<Vec<ResourceContents>, McpError> {
    #[derive(serde::Deserialize)]
    struct Raw {
        contents: Vec<ResourceContents>,
    }
    let raw: Raw = shape(value, "resources/read")?;
    let mut text = TextBudget::new(budgets);
    for contents in &raw.contents {
        if let ResourceContents::Text { text: body, .. } = contents {
            text.add(body.len())?;
        }
    }
    Ok(raw.contents)
}

/// Parses a result into its expected shape, or names the method whose answer was malformed.
pub(crate) fn shape<T: DeserializeOwned>(value: Value, method: &str) -> Result<T, McpError> {
    serde_json::from_value(value)
        .map_err(|err| McpError::Protocol(format!("the {method} result is malformed: {err}")))
}

fn content(block: Value, text: &mut TextBudget) -> Result<Content, McpError> {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let known = ["text", "image", "audio", "resource_link", "resource"];
    if !known.contains(&kind.as_str()) {
        return Ok(Content::Unsupported { kind });
    }
    let parsed: Content = serde_json::from_value(block)
        .map_err(|err| McpError::Protocol(format!("a {kind} content block is malformed: {err}")))?;
    match &parsed {
        Content::Text { text: body } => text.add(body.len())?,
        Content::Resource { resource: ResourceContents::Text { text: body, .. } } => {
            text.add(body.len())?;
        }
        _ => {}
    }
    Ok(parsed)
}

struct TextBudget {
    used: usize,
    limit: usize,
}

impl TextBudget {
    fn new(budgets: &Budgets) -> TextBudget {
        TextBudget { used: 0, limit: budgets.max_result_text_bytes }
    }

    fn add(&mut self, bytes: usize) -> Result<(), McpError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(McpError::BudgetExceeded { budget: Budget::ResultText, limit: self.limit });
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
