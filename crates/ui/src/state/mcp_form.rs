//! The options page's MCP servers: the server form and its validation, the engine's form of a
//! server (`mcp.save`), the editor around the form (which server it edits, the save it waits
//! for), the import of a pasted `mcpServers` snippet, and what a server's status, calls and
//! switches say and send.
//!
//! Secrets never come back from the engine: a stored bearer token shows as "a token is saved"
//! with a Replace button, and stored headers by their names. A save that leaves the token box
//! empty sends `bearerToken: null` and no headers, which keeps what is stored.

use panelot_protocol::SubmissionId;
use panelot_protocol::engine::HeaderInput;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpCallOutcome;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpImportEntry;
use panelot_protocol::engine::McpImportError;
use panelot_protocol::engine::McpServerInput;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::McpStatus;
use panelot_protocol::engine::parse_mcp_import;

use super::connection_form::FieldProblem;
use super::connection_form::acceptable_url;
use super::connection_form::parse_headers;
use super::connection_form::problem_text;
use super::urls::origin_of;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

/// Longest server name the engine keeps.
pub const NAME_MAX_CHARS: usize = 100;
/// Longest call timeout the form accepts, in seconds.
pub const TIMEOUT_MAX_S: u64 = 600;

/// The server form as typed: raw text, validated on save.
#[derive(Debug, Clone, PartialEq)]
pub struct McpForm {
    /// Display name.
    pub name: String,
    /// The Streamable HTTP endpoint.
    pub url: String,
    /// How Panelot proves itself.
    pub auth: McpAuth,
    /// A bearer token typed here; empty keeps the stored one.
    pub token: String,
    /// Whether the server has a stored token (editing).
    pub token_saved: bool,
    /// Whether the person chose to replace the stored token (its box is shown).
    pub replacing_token: bool,
    /// A pre-registered OAuth client id; empty lets the client register itself.
    pub oauth_client_id: String,
    /// Extra headers, one `Name: value` per line; empty keeps the stored ones.
    pub headers: String,
    /// Names of the stored headers (editing).
    pub saved_headers: Vec<String>,
    /// Whether it is used.
    pub enabled: bool,
    /// When it is connected.
    pub connect: McpConnectMode,
    /// Call timeout in seconds as typed; empty is the engine's default.
    pub timeout_s: String,
    /// Server tool names not offered (kept from the stored server).
    pub disabled_tools: Vec<String>,
}

impl Default for McpForm {
    /// An empty form for a new server: on, connected at startup, no auth.
    fn default() -> McpForm {
        McpForm {
            name: String::new(),
            url: String::new(),
            auth: McpAuth::None,
            token: String::new(),
            token_saved: false,
            replacing_token: false,
            oauth_client_id: String::new(),
            headers: String::new(),
            saved_headers: Vec::new(),
            enabled: true,
            connect: McpConnectMode::Startup,
            timeout_s: String::new(),
            disabled_tools: Vec::new(),
        }
    }
}

/// A field of the server form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpField {
    /// Name.
    Name,
    /// Server URL.
    Url,
    /// Bearer token.
    Token,
    /// OAuth client id.
    ClientId,
    /// Extra headers.
    Headers,
    /// Call timeout.
    Timeout,
}

impl McpField {
    /// Catalog key of the field's label.
    pub fn label(self) -> Msg {
        match self {
            McpField::Name => Msg::McpName,
            McpField::Url => Msg::McpUrl,
            McpField::Token => Msg::McpToken,
            McpField::ClientId => Msg::McpClientId,
            McpField::Headers => Msg::CustomHeaders,
            McpField::Timeout => Msg::McpTimeout,
        }
    }
}

/// Every auth choice, in the order the form lists them, with its `<select>` value and label.
pub const AUTH_CHOICES: [(McpAuth, &str, Msg); 3] = [
    (McpAuth::None, "none", Msg::McpAuthNone),
    (McpAuth::Bearer, "bearer", Msg::McpAuthBearer),
    (McpAuth::Oauth, "oauth", Msg::McpAuthOauth),
];

/// Every connect choice, with its `<select>` value and label.
pub const CONNECT_CHOICES: [(McpConnectMode, &str, Msg); 2] = [
    (McpConnectMode::Startup, "startup", Msg::McpConnectStartup),
    (McpConnectMode::Lazy, "lazy", Msg::McpConnectLazy),
];

/// The auth of a `<select>` value.
pub fn auth_from_value(value: &str) -> Option<McpAuth> {
    AUTH_CHOICES.iter().find(|(_, v, _)| *v == value).map(|(auth, _, _)| *auth)
}

/// The connect mode of a `<select>` value.
pub fn connect_from_value(value: &str) -> Option<McpConnectMode> {
    CONNECT_CHOICES.iter().find(|(_, v, _)| *v == value).map(|(mode, _, _)| *mode)
}

impl McpForm {
    /// The form editing the stored server `view`: its values, no secret.
    pub fn edit(view: &McpServerView) -> McpForm {
        McpForm {
            name: view.name.clone(),
            url: view.url.clone(),
            auth: view.auth,
            token: String::new(),
            token_saved: view.has_bearer_token,
            replacing_token: false,
            oauth_client_id: view.oauth_client_id.clone().unwrap_or_default(),
            headers: String::new(),
            saved_headers: view.header_names.clone(),
            enabled: view.enabled,
            connect: view.connect,
            timeout_s: (view.timeout_ms / 1000).to_string(),
            disabled_tools: view.disabled_tools.clone(),
        }
    }

    /// Whether the token box is shown: no token is stored, or the person is replacing it.
    pub fn token_box(&self) -> bool {
        !self.token_saved || self.replacing_token
    }

    /// Checks every field; all problems at once, in form order. `editing` is the stored server
    /// the save replaces.
    pub fn validate(
        &self,
        editing: Option<&str>,
    ) -> Result<McpServerInput, Vec<(McpField, FieldProblem)>> {
        let mut problems = Vec::new();
        let name = self.name.trim();
        if name.is_empty() {
            problems.push((McpField::Name, FieldProblem::Required));
        } else if name.chars().count() > NAME_MAX_CHARS {
            problems.push((McpField::Name, FieldProblem::TooLong));
        }
        let url = self.url.trim();
        if url.is_empty() {
            problems.push((McpField::Url, FieldProblem::Required));
        } else if !acceptable_url(url) {
            problems.push((McpField::Url, FieldProblem::BadUrl));
        }
        let token = self.token.trim();
        let bearer = self.auth == McpAuth::Bearer;
        if bearer && token.chars().any(char::is_whitespace) {
            problems.push((McpField::Token, FieldProblem::BadToken));
        } else if bearer && token.is_empty() && !self.token_saved {
            problems.push((McpField::Token, FieldProblem::Required));
        }
        let client_id = self.oauth_client_id.trim();
        if self.auth == McpAuth::Oauth && client_id.chars().any(char::is_whitespace) {
            problems.push((McpField::ClientId, FieldProblem::BadToken));
        }
        let headers = if self.headers.trim().is_empty() {
            Some(Vec::new())
        } else {
            parse_headers(&self.headers)
        };
        if headers.is_none() {
            problems.push((McpField::Headers, FieldProblem::BadHeader));
        }
        let timeout_ms = match self.timeout_s.trim() {
            "" => None,
            typed => match typed.parse::<u64>() {
                Ok(s) if (1..=TIMEOUT_MAX_S).contains(&s) => Some(s * 1000),
                _ => {
                    problems.push((McpField::Timeout, FieldProblem::OutOfRange));
                    None
                }
            },
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(McpServerInput {
            id: editing.map(str::to_owned),
            name: name.to_owned(),
            url: url.to_owned(),
            auth: self.auth,
            // Nothing typed keeps the stored token; another auth has none to send.
            bearer_token: (bearer && !token.is_empty()).then(|| token.to_owned()),
            oauth_client_id: (self.auth == McpAuth::Oauth && !client_id.is_empty())
                .then(|| client_id.to_owned()),
            // Nothing typed keeps the stored headers; for a new server that is none.
            custom_headers: headers.filter(|h| !h.is_empty()).map(|headers| {
                headers.into_iter().map(|(name, value)| HeaderInput { name, value }).collect()
            }),
            enabled: self.enabled,
            connect: self.connect,
            disabled_tools: self.disabled_tools.clone(),
            timeout_ms,
        })
    }
}

/// The stored server `view` as a save would send it unchanged: its secrets kept.
pub fn stored_input(view: &McpServerView) -> McpServerInput {
    McpServerInput {
        id: Some(view.id.clone()),
        name: view.name.clone(),
        url: view.url.clone(),
        auth: view.auth,
        bearer_token: None,
        oauth_client_id: view.oauth_client_id.clone(),
        custom_headers: None,
        enabled: view.enabled,
        connect: view.connect,
        disabled_tools: view.disabled_tools.clone(),
        timeout_ms: Some(view.timeout_ms),
    }
}

/// The stored server `view` switched on or off.
pub fn with_enabled(view: &McpServerView, on: bool) -> McpServerInput {
    McpServerInput { enabled: on, ..stored_input(view) }
}

/// The stored server `view` with its tool `tool` offered to the model or not.
pub fn with_tool(view: &McpServerView, tool: &str, on: bool) -> McpServerInput {
    let mut input = stored_input(view);
    input.disabled_tools.retain(|t| t != tool);
    if !on {
        input.disabled_tools.push(tool.to_owned());
    }
    input
}

/// What became of the server editor's last save.
pub type SaveStatus = super::save_status::SaveStatus<(McpField, FieldProblem), String>;

/// The server form with the server it edits and its last save.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpEditor {
    /// The values shown.
    pub form: McpForm,
    /// The id of the stored server it edits; `None` adds one.
    pub editing: Option<String>,
    /// The last save.
    pub status: SaveStatus,
}

impl McpEditor {
    /// A form editing the stored server `view`.
    pub fn edit(view: &McpServerView) -> McpEditor {
        McpEditor {
            form: McpForm::edit(view),
            editing: Some(view.id.clone()),
            status: SaveStatus::Idle,
        }
    }

    /// The server to send, or `None` with the problems recorded.
    pub fn submit(&mut self) -> Option<McpServerInput> {
        match self.form.validate(self.editing.as_deref()) {
            Ok(input) => Some(input),
            Err(problems) => {
                self.status = SaveStatus::Invalid(problems);
                None
            }
        }
    }

    /// Records that the save `submission_id` went out while `known` were stored.
    pub fn sent(&mut self, submission_id: SubmissionId, known: Vec<String>) {
        self.status.sent(submission_id, known);
    }

    /// Takes the engine's answer to `submission_id` (`refusal` is the reason of a rejection);
    /// returns whether it answered this editor's save.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        self.status.answer(submission_id, refusal)
    }

    /// Whether the save was stored: the edited server once acknowledged; a new one once the
    /// settings list an id that was not there when it was sent.
    pub fn saved(&self, servers: &[McpServerView]) -> bool {
        let SaveStatus::Waiting(pending) = &self.status else { return false };
        match &self.editing {
            Some(_) => pending.acked,
            None => servers.iter().any(|s| !pending.known.contains(&s.id)),
        }
    }

    /// Whether a save is on its way.
    pub fn waiting(&self) -> bool {
        matches!(self.status, SaveStatus::Waiting(_))
    }

    /// What the form's problem list says.
    pub fn notes(&self, lang: Lang) -> Vec<String> {
        match &self.status {
            SaveStatus::Invalid(found) => found
                .iter()
                .map(|(field, problem)| problem_text(lang, field.label(), *problem))
                .collect(),
            SaveStatus::Refused(reason) => refusal_notes(lang, [reason.as_str()]),
            SaveStatus::Idle | SaveStatus::Waiting(_) => Vec::new(),
        }
    }
}

/// "Not saved: …" for each refusal of the engine.
fn refusal_notes<'a>(lang: Lang, reasons: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    reasons
        .into_iter()
        .map(|reason| {
            i18n::format(lang, Msg::NotSaved, &[("message", &i18n::engine_text(lang, reason))])
        })
        .collect()
}

/// Why a pasted entry cannot be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportProblem {
    /// What the snippet reader said (English, from the protocol crate).
    Said(String),
    /// Its URL is neither HTTPS nor HTTP to this machine.
    BadUrl,
}

/// One entry of a pasted snippet as the preview lists it.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportRow {
    /// A remote server that can be added; `chosen` when its box is ticked.
    Addable {
        /// The server as its save sends it.
        server: McpServerInput,
        /// Whether it will be added.
        chosen: bool,
    },
    /// A local server started by a command: it needs Panelot's native host.
    NeedsNativeHost {
        /// Its name in the snippet.
        name: String,
        /// The command it runs.
        command: String,
    },
    /// An entry that cannot be added.
    Unusable {
        /// Its name in the snippet.
        name: String,
        /// Why.
        problem: ImportProblem,
    },
}

/// The import box: the text pasted, what it holds, and the saves it sent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpImport {
    /// Whether the box is open.
    pub open: bool,
    /// The text as pasted.
    pub text: String,
    /// What the text was read as: `None` until it is read.
    pub preview: Option<Result<Vec<ImportRow>, McpImportError>>,
    /// Saves sent and not answered yet.
    pub pending: Vec<SubmissionId>,
    /// The engine's reasons for saves it refused.
    pub refused: Vec<String>,
}

impl McpImport {
    /// Reads the text into the preview: every remote entry chosen, except one whose URL the
    /// form would refuse.
    pub fn read(&mut self) {
        self.refused.clear();
        self.preview = Some(parse_mcp_import(&self.text).map(|entries| {
            entries
                .into_iter()
                .map(|entry| match entry {
                    McpImportEntry::Remote { server } if !acceptable_url(server.url.trim()) => {
                        ImportRow::Unusable { name: server.name, problem: ImportProblem::BadUrl }
                    }
                    McpImportEntry::Remote { server } => {
                        ImportRow::Addable { server, chosen: true }
                    }
                    McpImportEntry::NeedsNativeHost { name, command } => {
                        ImportRow::NeedsNativeHost { name, command }
                    }
                    McpImportEntry::Invalid { name, reason } => {
                        ImportRow::Unusable { name, problem: ImportProblem::Said(reason) }
                    }
                })
                .collect()
        }));
    }

    /// Ticks or unticks the entry at `index`.
    pub fn choose(&mut self, index: usize, chosen: bool) {
        if let Some(Ok(rows)) = &mut self.preview
            && let Some(ImportRow::Addable { chosen: shown, .. }) = rows.get_mut(index)
        {
            *shown = chosen;
        }
    }

    /// The servers ticked, in the snippet's order.
    pub fn chosen(&self) -> Vec<McpServerInput> {
        let Some(Ok(rows)) = &self.preview else { return Vec::new() };
        rows.iter()
            .filter_map(|row| match row {
                ImportRow::Addable { server, chosen: true } => Some(server.clone()),
                ImportRow::Addable { chosen: false, .. }
                | ImportRow::NeedsNativeHost { .. }
                | ImportRow::Unusable { .. } => None,
            })
            .collect()
    }

    /// Records the saves sent for the chosen servers; the box closes and empties.
    pub fn sent(&mut self, submission_ids: Vec<SubmissionId>) {
        *self = McpImport { pending: submission_ids, ..McpImport::default() };
    }

    /// Takes the engine's answer to `submission_id`; returns whether it answered a save of
    /// this import. A refusal is kept to be shown.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        let before = self.pending.len();
        self.pending.retain(|id| id != submission_id);
        let answered = self.pending.len() != before;
        if answered && let Some(reason) = refusal {
            self.refused.push(reason.to_owned());
        }
        answered
    }

    /// What the import says under its box: why the text cannot be read, or the refusals.
    pub fn notes(&self, lang: Lang) -> Vec<String> {
        let mut notes = match &self.preview {
            Some(Err(error)) => vec![import_error_text(lang, error)],
            Some(Ok(rows)) if rows.is_empty() => vec![i18n::text(lang, Msg::McpImportNone).into()],
            Some(Ok(_)) | None => Vec::new(),
        };
        notes.extend(refusal_notes(lang, self.refused.iter().map(String::as_str)));
        notes
    }
}

/// Why a snippet cannot be read, in words.
pub fn import_error_text(lang: Lang, error: &McpImportError) -> String {
    match error {
        McpImportError::NotJson(detail) => {
            i18n::format(lang, Msg::McpImportNotJson, &[("detail", detail)])
        }
        McpImportError::NoServers => i18n::text(lang, Msg::McpImportNoServers).to_owned(),
        McpImportError::TooLarge => i18n::text(lang, Msg::McpImportTooLarge).to_owned(),
    }
}

/// The `data-state` of a status chip and its words.
pub fn status_text(lang: Lang, status: &McpStatus, enabled: bool) -> (&'static str, String) {
    let t = |msg| i18n::text(lang, msg).to_owned();
    if !enabled {
        return ("off", t(Msg::McpStatusOff));
    }
    match status {
        McpStatus::Disconnected => ("disconnected", t(Msg::McpStatusDisconnected)),
        McpStatus::Connecting => ("connecting", t(Msg::McpStatusConnecting)),
        McpStatus::Ready { tools: 1 } => ("ready", t(Msg::McpStatusReadyOne)),
        McpStatus::Ready { tools } => {
            ("ready", i18n::format(lang, Msg::McpStatusReady, &[("n", &tools.to_string())]))
        }
        McpStatus::NeedsAuthorization { .. } => ("auth", t(Msg::McpStatusNeedsAuth)),
        McpStatus::Error { reason } => (
            "error",
            i18n::format(
                lang,
                Msg::McpStatusError,
                &[("reason", &i18n::engine_text(lang, reason))],
            ),
        ),
    }
}

/// The button that connects a switched-on server, by its status: Connect, Retry after an
/// error, Sign in when it asks; none while it connects or once it is ready.
pub fn connect_action(status: &McpStatus, enabled: bool) -> Option<Msg> {
    if !enabled {
        return None;
    }
    match status {
        McpStatus::Disconnected => Some(Msg::McpConnect),
        McpStatus::Error { .. } => Some(Msg::McpRetry),
        McpStatus::NeedsAuthorization { .. } => Some(Msg::McpSignIn),
        McpStatus::Connecting | McpStatus::Ready { .. } => None,
    }
}

/// The origins Connect or Sign in asks the browser for access to, inside the click, before
/// the engine is told: the server's, and when a sign-in is asked for, every origin the status
/// says it fetches from (its authorization server's). Only web origins, each once.
pub fn access_origins(view: &McpServerView) -> Vec<String> {
    let named = match &view.status {
        McpStatus::NeedsAuthorization { origins, .. } => origins.as_slice(),
        McpStatus::Disconnected
        | McpStatus::Connecting
        | McpStatus::Ready { .. }
        | McpStatus::Error { .. } => &[],
    };
    let mut access: Vec<String> = Vec::new();
    for origin in std::iter::once(&view.url).chain(named).filter_map(|url| origin_of(url)) {
        if !access.contains(&origin) {
            access.push(origin);
        }
    }
    access
}

/// The sites besides the server's own that signing in to it asks access to, as the card
/// names them (`auth.example.com`, `http://auth.test:8080`); none when no sign-in is asked.
pub fn sign_in_sites(view: &McpServerView) -> Vec<String> {
    if !matches!(view.status, McpStatus::NeedsAuthorization { .. }) || !view.enabled {
        return Vec::new();
    }
    let server = origin_of(&view.url);
    access_origins(view)
        .into_iter()
        .filter(|origin| Some(origin) != server.as_ref())
        .map(|origin| origin.strip_prefix("https://").map(str::to_owned).unwrap_or(origin))
        .collect()
}

/// The `data-outcome` of a call and its words.
pub fn outcome_text(outcome: McpCallOutcome) -> (&'static str, Msg) {
    match outcome {
        McpCallOutcome::Ok => ("ok", Msg::McpOutcomeOk),
        McpCallOutcome::Error => ("error", Msg::McpOutcomeError),
        McpCallOutcome::Denied => ("denied", Msg::McpOutcomeDenied),
        McpCallOutcome::Cancelled => ("cancelled", Msg::McpOutcomeCancelled),
    }
}

#[cfg(test)]
#[path = "mcp_form_tests.rs"]
mod tests;
