//! What every test needs: a mock server, a client over the native transport, and a handler
//! that records notifications and answers elicitations as a user named Ada would.

use std::cell::RefCell;
use std::rc::Rc;

use panelot_core::model::LocalFuture;
use panelot_mcp::McpClient;
use panelot_mcp::ResumePoint;
use panelot_mcp::ServerConfig;
use panelot_mcp::ServerHandler;
use panelot_mcp::ServerNotification;
use panelot_mcp::model::ElicitAction;
use panelot_mcp::model::ElicitRequest;
use panelot_mcp::model::ElicitResult;
use panelot_mcp::names::ServerSlug;
use panelot_providers::NativeHttp;
use panelot_providers::TokioTimer;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use serde_json::json;

/// Records what the server sent on its own.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    pub(crate) notifications: RefCell<Vec<ServerNotification>>,
    pub(crate) elicitations: RefCell<Vec<ElicitRequest>>,
    /// Where each elicitation's call stood, when its stream could be resumed.
    pub(crate) resume_points: RefCell<Vec<Option<ResumePoint>>>,
    /// How long "the user" takes to answer an elicitation.
    pub(crate) elicit_delay_ms: std::cell::Cell<u64>,
}

impl ServerHandler for Recorder {
    fn notification(&self, notification: ServerNotification) {
        self.notifications.borrow_mut().push(notification);
    }

    fn elicit(
        &self,
        request: ElicitRequest,
        resume: Option<ResumePoint>,
    ) -> LocalFuture<'_, ElicitResult> {
        self.elicitations.borrow_mut().push(request);
        self.resume_points.borrow_mut().push(resume);
        let delay = std::time::Duration::from_millis(self.elicit_delay_ms.get());
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            let content = json!({"name": "Ada"}).as_object().cloned();
            ElicitResult { action: ElicitAction::Accept, content }
        })
    }
}

pub(crate) type Client = McpClient<NativeHttp, TokioTimer>;

/// A running mock and a client of it.
pub(crate) struct Setup {
    pub(crate) mock: MockMcp,
    pub(crate) client: Client,
    pub(crate) recorder: Rc<Recorder>,
}

pub(crate) fn setup(config: MockMcpConfig) -> Setup {
    setup_with(config, |_| {})
}

pub(crate) fn setup_with(config: MockMcpConfig, adjust: impl FnOnce(&mut ServerConfig)) -> Setup {
    let mock = MockMcp::start(config).expect("the mock MCP server starts");
    let mut server = ServerConfig::new(ServerSlug::new("mock").expect("a valid slug"), mock.url());
    adjust(&mut server);
    let (client, recorder) = client_with(server);
    Setup { mock, client, recorder }
}

/// A second client of the same server, as a module started after the first was lost has.
pub(crate) fn another_client(mock: &MockMcp) -> (Client, Rc<Recorder>) {
    client_with(ServerConfig::new(ServerSlug::new("mock").expect("a valid slug"), mock.url()))
}

fn client_with(server: ServerConfig) -> (Client, Rc<Recorder>) {
    let recorder = Rc::new(Recorder::default());
    let handler: Rc<dyn ServerHandler> = recorder.clone();
    let http = NativeHttp::new().expect("the native transport builds");
    (McpClient::new(http, TokioTimer, server, handler), recorder)
}
