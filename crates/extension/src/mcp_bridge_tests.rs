//! A crash of the MCP module as the servers' statuses.

use panelot_core::driver::Input;
use panelot_protocol::engine::McpStatus;

use super::crashed;

#[test]
fn a_crash_is_every_configured_server_s_error_in_the_bridge_s_words() {
    let reason =
        "the MCP module crashed (unreachable); restart the browser or reload the extension";
    let inputs = crashed(reason, vec!["docs".to_owned(), "search".to_owned()]);
    let statuses: Vec<(String, McpStatus)> = inputs
        .into_iter()
        .map(|input| match input {
            Input::McpStatus(server, status) => (server, status),
            other => panic!("not a status: {other:?}"),
        })
        .collect();
    let error = McpStatus::Error { reason: reason.to_owned() };
    assert_eq!(statuses, [("docs".to_owned(), error.clone()), ("search".to_owned(), error)]);
}
