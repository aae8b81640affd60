//! Interop with an MCP server written outside the project: the reference Python SDK's server
//! (`pip install mcp`) over Streamable HTTP on loopback, in JSON and in SSE mode.
//!
//! The Python is `$PANELOT_MCP_PYTHON`, else `python3`; without the `mcp` package the test says
//! so on stderr and passes (`.ci/run` installs it into a venv).

use std::net::TcpListener;
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::rc::Rc;
use std::time::Duration;
use std::time::Instant;

use panelot_core::env::AbortSignal;
use panelot_mcp::McpClient;
use panelot_mcp::ServerConfig;
use panelot_mcp::ServerHandler;
use panelot_mcp::model::Content;
use panelot_mcp::model::ResourceContents;
use panelot_mcp::names::ServerSlug;
use panelot_providers::NativeHttp;
use panelot_providers::TokioTimer;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::harness::Recorder;

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn python() -> Option<String> {
    let python = std::env::var("PANELOT_MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let has_mcp = Command::new(&python)
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    has_mcp.then_some(python)
}

fn start(python: &str, mode: &str) -> (Server, String) {
    // A free port: bind, read, release. Another process could take it in between; then the
    // server fails to start and the wait below says so.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/python_server.py");
    let child = Command::new(python)
        .arg(script)
        .arg(port.to_string())
        .arg(mode)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the Python server starts");
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the Python MCP server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test(flavor = "current_thread")]
async fn the_reference_python_server_interoperates_in_json_and_sse_mode() {
    let Some(python) = python() else {
        eprintln!(
            "SKIPPED interop: no Python with the `mcp` package (pip install mcp, or set \
             PANELOT_MCP_PYTHON to a Python that has it)"
        );
        return;
    };
    for mode in ["json", "sse"] {
        let (_server, url) = start(&python, mode);
        let config = ServerConfig::new(ServerSlug::new("py").expect("a slug"), url);
        let handler: Rc<dyn ServerHandler> = Rc::new(Recorder::default());
        let http = NativeHttp::new().expect("the native transport builds");
        let client = McpClient::new(http, TokioTimer, config, handler);
        let (_handle, abort) = AbortSignal::new();

        let info = client.connect(&abort).await.unwrap_or_else(|err| panic!("{mode}: {err}"));
        assert_eq!(info.protocol_version, "2025-06-18", "{mode}");
        assert_eq!(info.server_info.name, "interop");

        let catalog = client.list_tools(&abort).await.expect("lists tools");
        let add = catalog.get("mcp__py__add").expect("the add tool");
        assert_eq!(add.tool.input_schema["type"], "object");
        assert!(catalog.rejected.is_empty(), "{:?}", catalog.rejected);

        let args = json!({"a": 2, "b": 40}).as_object().cloned().unwrap_or_default();
        let result = client.call_tool("add", args, &abort).await.expect("calls add");
        assert_eq!(result.content.first(), Some(&Content::Text { text: "42".to_owned() }));
        assert!(!result.is_error);

        let args = json!({"who": "Ada"}).as_object().cloned().unwrap_or_default();
        let prompt = client.get_prompt("greet", args, &abort).await.expect("gets the prompt");
        assert_eq!(
            prompt.messages.first().map(|m| &m.content),
            Some(&Content::Text { text: "Say hello to Ada.".to_owned() })
        );

        let read = client.read_resource("mem://readme", &abort).await.expect("reads");
        assert!(
            matches!(&read[..], [ResourceContents::Text { text, .. }] if text == "Read me."),
            "{read:?}"
        );
        let err = client.call_tool("missing", Default::default(), &abort).await;
        assert!(err.is_err() || err.as_ref().is_ok_and(|r| r.is_error), "{mode}: {err:?}");
        client.close().await.expect("closes the session");
    }
}
