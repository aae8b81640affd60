//! The vault a host gives the engine to store model connections: the engine keeps connections as
//! the vault makes them (keys sealed) and never sees how.

use panelot_protocol::ConnectionId;
use panelot_protocol::engine::ConnectionInput;
use panelot_protocol::engine::ConnectionTemplateView;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::McpServerInput;
use panelot_protocol::engine::McpServerView;
use serde_json::Value;

/// Turns a connection from the settings form into its stored form (keys sealed) and back into
/// what the settings page may see. Implemented by the host with the providers' vault.
pub trait ConnectionVault {
    /// Validates `input` and makes its stored form; `existing` is the stored connection it
    /// replaces (its keys are kept when the form sends none). The error is shown to the user
    /// and never contains a key.
    fn store(
        &self,
        id: &ConnectionId,
        input: &ConnectionInput,
        existing: Option<&Value>,
    ) -> Result<Value, String>;

    /// What the settings page may see of a stored connection; `None` for one it cannot read.
    fn view(&self, stored: &Value) -> Option<ConnectionView>;

    /// Every provider quirk a connection can switch on.
    fn quirk_names(&self) -> Vec<String>;

    /// The endpoints the host knows, to pre-fill a new connection.
    fn templates(&self) -> Vec<ConnectionTemplateView>;

    /// Validates an MCP server from the settings form and makes its stored form (token and
    /// sensitive headers sealed); `existing` is the stored server it replaces. A host without
    /// MCP refuses.
    fn store_mcp(
        &self,
        id: &str,
        input: &McpServerInput,
        existing: Option<&Value>,
    ) -> Result<Value, String> {
        let _ = (id, input, existing);
        Err("this host has no MCP client".to_owned())
    }

    /// What the settings page may see of a stored MCP server (status, tools and calls left
    /// empty); `None` for one it cannot read.
    fn view_mcp(&self, stored: &Value) -> Option<McpServerView> {
        let _ = stored;
        None
    }
}
