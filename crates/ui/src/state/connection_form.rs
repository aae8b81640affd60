//! The connection form of the options page: a provider template fills it, the person types a
//! name, keys and a model; validation; the engine's form of the connection (`connection.save`);
//! the editor around the form (which connection it edits, the save it waits for); what a stored
//! connection's card says; and the screen the options page opens on.
//!
//! Keys of a stored connection never come back from the engine, so editing shows them as
//! "saved key 1", "saved key 2": rows that can be removed or kept, next to new rows to type.
//! A save that keeps them all and adds none sends no keys (the engine keeps the stored ones);
//! otherwise it sends the list in order, a kept key as its position (`ApiKeyEntry::Saved`).

use panelot_protocol::ConnectionId;
use panelot_protocol::Origin;
use panelot_protocol::Scheme;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ApiKeyEntry;
use panelot_protocol::engine::ConnectionInput;
use panelot_protocol::engine::ConnectionKind as Wire;
use panelot_protocol::engine::ConnectionTemplateView;
use panelot_protocol::engine::ConnectionView;
use panelot_protocol::engine::HeaderInput;
use panelot_protocol::engine::ModelPrice;
use panelot_protocol::engine::is_price;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

/// The wire format of a model connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConnectionKind {
    /// An OpenAI-compatible `/chat/completions` endpoint.
    #[default]
    OpenAiCompatible,
    /// The Anthropic Messages API.
    Anthropic,
}

impl ConnectionKind {
    /// Every kind, in the order the form lists them.
    pub const ALL: [ConnectionKind; 2] =
        [ConnectionKind::OpenAiCompatible, ConnectionKind::Anthropic];

    /// The value of the form's `<select>`, which is also a template's `kind`.
    pub fn value(self) -> &'static str {
        match self {
            ConnectionKind::OpenAiCompatible => "openai",
            ConnectionKind::Anthropic => "anthropic",
        }
    }

    /// The kind for a `<select>` value or a template's `kind`.
    pub fn from_value(value: &str) -> Option<ConnectionKind> {
        ConnectionKind::ALL.into_iter().find(|k| k.value() == value)
    }

    /// Catalog key of the kind's label.
    pub fn label(self) -> Msg {
        match self {
            ConnectionKind::OpenAiCompatible => Msg::KindOpenAi,
            ConnectionKind::Anthropic => Msg::KindAnthropic,
        }
    }

    fn from_wire(kind: Wire) -> ConnectionKind {
        match kind {
            Wire::Openai => ConnectionKind::OpenAiCompatible,
            Wire::Anthropic => ConnectionKind::Anthropic,
        }
    }

    fn wire(self) -> Wire {
        match self {
            ConnectionKind::OpenAiCompatible => Wire::Openai,
            ConnectionKind::Anthropic => Wire::Anthropic,
        }
    }
}

/// One row of the form's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRow {
    /// The stored key at this position (from 1); its value is never shown.
    Saved(u32),
    /// A key typed in the form.
    Typed(String),
}

/// The connection form as typed: raw text, validated on save.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConnectionForm {
    /// The template it started from (`openai`, `ollama`, `custom`, …).
    pub template: String,
    /// That template's name as a connection name (empty for a custom endpoint): the name field
    /// follows the template while it still shows this.
    pub template_name: String,
    /// Whether the template's endpoint needs a key.
    pub key_required: bool,
    /// Wire format.
    pub kind: ConnectionKind,
    /// Name shown in model pickers.
    pub name: String,
    /// Endpoint base URL.
    pub base_url: String,
    /// Keys in failover order: stored ones (when editing) and typed ones.
    pub keys: Vec<KeyRow>,
    /// The model used by default.
    pub model: String,
    /// The connection's other stored models, kept after the default one.
    pub other_models: Vec<String>,
    /// Extra headers, one `Name: value` per line; empty keeps the stored ones.
    pub headers: String,
    /// Names of the stored headers (when editing), kept while `headers` is empty.
    pub saved_headers: Vec<String>,
    /// Provider quirks switched on.
    pub quirks: Vec<String>,
    /// Whether the connection is offered (kept from the stored one).
    pub enabled: bool,
    /// The default model's input price as typed (US dollars per million tokens); empty: none.
    pub price_input: String,
    /// The default model's output price as typed.
    pub price_output: String,
    /// The stored prices, of every model; the default model's is replaced by the typed one.
    pub saved_prices: Vec<ModelPrice>,
}

/// A field of the connection form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Name.
    Name,
    /// Base URL.
    BaseUrl,
    /// API keys.
    ApiKey,
    /// Default model.
    Model,
    /// Extra headers.
    Headers,
    /// The default model's prices.
    Prices,
}

impl Field {
    /// Catalog key of the field's label.
    pub fn label(self) -> Msg {
        match self {
            Field::Name => Msg::ConnectionName,
            Field::BaseUrl => Msg::BaseUrl,
            Field::ApiKey => Msg::ApiKeys,
            Field::Model => Msg::ModelField,
            Field::Headers => Msg::CustomHeaders,
            Field::Prices => Msg::Prices,
        }
    }
}

/// What is wrong with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldProblem {
    /// Empty.
    Required,
    /// Not an `https://` URL (or `http://` to a local address).
    BadUrl,
    /// A line that is not `Name: value` with a valid header name.
    BadHeader,
    /// Longer than the engine keeps.
    TooLong,
    /// Not a number, or outside the range its label gives.
    OutOfRange,
    /// A key with a space or a line break inside.
    BadKey,
    /// A token or id with a space or a line break inside.
    BadToken,
}

impl FieldProblem {
    /// Catalog key of the message; it takes a `{field}` argument.
    pub fn message(self) -> Msg {
        match self {
            FieldProblem::Required => Msg::FieldRequired,
            FieldProblem::BadUrl => Msg::FieldBadUrl,
            FieldProblem::BadHeader => Msg::FieldBadHeader,
            FieldProblem::TooLong => Msg::FieldTooLong,
            FieldProblem::OutOfRange => Msg::FieldOutOfRange,
            FieldProblem::BadKey => Msg::FieldBadKey,
            FieldProblem::BadToken => Msg::FieldBadToken,
        }
    }
}

/// A validated connection, ready to hand to the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionDraft {
    /// Wire format.
    pub kind: ConnectionKind,
    /// Name, trimmed.
    pub name: String,
    /// Base URL without a trailing slash.
    pub base_url: String,
    /// Keys to send; `None` keeps the stored ones.
    pub api_keys: Option<Vec<ApiKeyEntry>>,
    /// Model ids, the default first; empty until one is chosen.
    pub model_ids: Vec<String>,
    /// Extra headers as (name, value); `None` keeps the stored ones.
    pub headers: Option<Vec<(String, String)>>,
    /// Provider quirks switched on.
    pub quirks: Vec<String>,
    /// Whether it is offered.
    pub enabled: bool,
    /// Model prices.
    pub prices: Vec<ModelPrice>,
}

impl ConnectionForm {
    /// A new connection from `template`: its URL, kind and quirks, its name (none for a custom
    /// endpoint), one empty key row.
    pub fn from_template(template: &ConnectionTemplateView) -> ConnectionForm {
        let mut form = ConnectionForm {
            keys: vec![KeyRow::Typed(String::new())],
            enabled: true,
            ..ConnectionForm::default()
        };
        form.apply_template(template);
        form
    }

    /// Switches to `template`: URL, kind and quirks follow it; the name too unless one was typed.
    pub fn apply_template(&mut self, template: &ConnectionTemplateView) {
        let name_was_template = self.name.trim().is_empty() || self.name == self.template_name;
        self.template = template.id.clone();
        self.template_name = template_name(template);
        self.key_required = template.key_required;
        self.kind = ConnectionKind::from_value(&template.kind).unwrap_or_default();
        self.base_url = template.base_url.clone();
        self.quirks = template.quirks.clone();
        if name_was_template {
            self.name = self.template_name.clone();
        }
    }

    /// The form editing the stored connection `view`; `templates` name its provider.
    pub fn edit(view: &ConnectionView, templates: &[ConnectionTemplateView]) -> ConnectionForm {
        let template = template_of(templates, view);
        let mut models = view.model_ids.iter().cloned();
        let price = view.prices.iter().find(|p| view.model_ids.first() == Some(&p.model_id));
        ConnectionForm {
            template: template.map(|t| t.id.clone()).unwrap_or_else(|| "custom".to_owned()),
            template_name: template.map(template_name).unwrap_or_default(),
            key_required: template.is_some_and(|t| t.key_required),
            kind: ConnectionKind::from_wire(view.kind),
            name: view.name.clone(),
            base_url: view.base_url.clone(),
            keys: (1..=view.key_count).map(KeyRow::Saved).collect(),
            model: models.next().unwrap_or_default(),
            other_models: models.collect(),
            headers: String::new(),
            saved_headers: view.header_names.clone(),
            quirks: view.quirks.clone(),
            enabled: view.enabled,
            price_input: price.map(|p| p.input.to_string()).unwrap_or_default(),
            price_output: price.map(|p| p.output.to_string()).unwrap_or_default(),
            saved_prices: view.prices.clone(),
        }
    }

    /// Adds an empty key row at the end.
    pub fn add_key(&mut self) {
        self.keys.push(KeyRow::Typed(String::new()));
    }

    /// Removes the key row at `index`; the last row is emptied instead, so a key can always be
    /// typed.
    pub fn remove_key(&mut self, index: usize) {
        if index < self.keys.len() {
            self.keys.remove(index);
        }
        if self.keys.is_empty() {
            self.add_key();
        }
    }

    /// Sets the typed key of row `index`.
    pub fn type_key(&mut self, index: usize, text: String) {
        if let Some(row) = self.keys.get_mut(index) {
            *row = KeyRow::Typed(text);
        }
    }

    /// Switches `quirk` on or off.
    pub fn set_quirk(&mut self, quirk: &str, on: bool) {
        self.quirks.retain(|q| q != quirk);
        if on {
            self.quirks.push(quirk.to_owned());
        }
    }

    /// Checks every field; all problems at once, in form order.
    pub fn validate(&self) -> Result<ConnectionDraft, Vec<(Field, FieldProblem)>> {
        let mut problems = Vec::new();
        if self.name.trim().is_empty() {
            problems.push((Field::Name, FieldProblem::Required));
        }
        let base_url = self.base_url.trim();
        if base_url.is_empty() {
            problems.push((Field::BaseUrl, FieldProblem::Required));
        } else if !acceptable_url(base_url) {
            problems.push((Field::BaseUrl, FieldProblem::BadUrl));
        }
        let typed: Vec<&str> = self
            .keys
            .iter()
            .filter_map(|row| match row {
                KeyRow::Typed(key) => Some(key.trim()),
                KeyRow::Saved(_) => None,
            })
            .filter(|key| !key.is_empty())
            .collect();
        let n_saved = self.keys.iter().filter(|row| matches!(row, KeyRow::Saved(_))).count();
        if typed.iter().any(|key| key.chars().any(char::is_whitespace)) {
            problems.push((Field::ApiKey, FieldProblem::BadKey));
        } else if self.key_required && typed.is_empty() && n_saved == 0 {
            problems.push((Field::ApiKey, FieldProblem::Required));
        }
        let headers = if self.headers.trim().is_empty() {
            Some(Vec::new())
        } else {
            parse_headers(&self.headers)
        };
        if headers.is_none() {
            problems.push((Field::Headers, FieldProblem::BadHeader));
        }
        let price = match self.typed_price() {
            Ok(price) => price,
            Err(problem) => {
                problems.push((Field::Prices, problem));
                None
            }
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        let model = self.model.trim();
        let mut model_ids: Vec<String> = Vec::new();
        for id in std::iter::once(model).chain(self.other_models.iter().map(|m| m.trim())) {
            if !id.is_empty() && !model_ids.iter().any(|known| known == id) {
                model_ids.push(id.to_owned());
            }
        }
        Ok(ConnectionDraft {
            kind: self.kind,
            name: self.name.trim().to_owned(),
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_keys: self.keys_to_send(),
            model_ids,
            // Nothing typed keeps what is stored; for a new connection that is none.
            headers: headers.filter(|h| !h.is_empty()),
            quirks: self.quirks.clone(),
            enabled: self.enabled,
            prices: self.prices_with(model, price),
        })
    }

    /// The typed price of the default model as (input, output): `None` when both boxes are
    /// empty; one without the other is a missing field.
    fn typed_price(&self) -> Result<Option<(f64, f64)>, FieldProblem> {
        let parse = |text: &str| match text.parse::<f64>() {
            Ok(usd) if is_price(usd) => Ok(usd),
            _ => Err(FieldProblem::OutOfRange),
        };
        match (self.price_input.trim(), self.price_output.trim()) {
            ("", "") => Ok(None),
            ("", _) | (_, "") => Err(FieldProblem::Required),
            (input, output) => Ok(Some((parse(input)?, parse(output)?))),
        }
    }

    /// The stored prices with the default model's set to `price` (or removed).
    fn prices_with(&self, model: &str, price: Option<(f64, f64)>) -> Vec<ModelPrice> {
        let mut prices: Vec<ModelPrice> =
            self.saved_prices.iter().filter(|p| p.model_id != model).cloned().collect();
        if let Some((input, output)) = price
            && !model.is_empty()
        {
            // The form asks for no cache prices: stored ones stay while the model's prices do.
            let kept = self
                .saved_prices
                .iter()
                .find(|p| p.model_id == model && p.input == input && p.output == output);
            prices.push(ModelPrice {
                model_id: model.to_owned(),
                input,
                output,
                cache_read: kept.and_then(|p| p.cache_read),
                cache_write: kept.and_then(|p| p.cache_write),
            });
        }
        prices
    }

    /// The keys a save sends: `None` when the stored ones stay as they are (all kept, in order,
    /// none typed), else every row in order, a kept key by its reference.
    fn keys_to_send(&self) -> Option<Vec<ApiKeyEntry>> {
        let mut unchanged = true;
        let mut expected = 1;
        let mut sent = Vec::new();
        for row in &self.keys {
            match row {
                KeyRow::Saved(position) => {
                    unchanged &= *position == expected;
                    expected += 1;
                    sent.push(ApiKeyEntry::Saved { saved: *position });
                }
                KeyRow::Typed(key) if key.trim().is_empty() => {}
                KeyRow::Typed(key) => {
                    unchanged = false;
                    sent.push(ApiKeyEntry::Typed(key.trim().to_owned()));
                }
            }
        }
        let any_saved = expected > 1;
        // Editing a connection whose keys all stay: the engine keeps them as they are. A new
        // connection always says which keys it has (none is a valid answer).
        (!(unchanged && any_saved)).then_some(sent)
    }
}

impl ConnectionDraft {
    /// The engine's form of the connection; `editing` is the stored one it replaces.
    pub fn to_input(&self, editing: Option<ConnectionId>) -> ConnectionInput {
        ConnectionInput {
            id: editing,
            name: self.name.clone(),
            kind: self.kind.wire(),
            base_url: self.base_url.clone(),
            api_keys: self.api_keys.clone(),
            enabled: self.enabled,
            model_ids: self.model_ids.clone(),
            custom_headers: self.headers.as_ref().map(|headers| {
                headers
                    .iter()
                    .map(|(name, value)| HeaderInput { name: name.clone(), value: value.clone() })
                    .collect()
            }),
            quirks: self.quirks.clone(),
            prices: Some(self.prices.clone()),
        }
    }
}

/// The stored connection `view` with `model` as its default model (its other models kept after
/// it), everything else as stored: what picking a listed model saves.
pub fn with_model(view: &ConnectionView, model: &str) -> ConnectionInput {
    let mut model_ids = vec![model.to_owned()];
    model_ids.extend(view.model_ids.iter().filter(|m| m.as_str() != model).cloned());
    ConnectionInput {
        id: Some(view.id.clone()),
        name: view.name.clone(),
        kind: view.kind,
        base_url: view.base_url.clone(),
        api_keys: None,
        enabled: view.enabled,
        model_ids,
        custom_headers: None,
        quirks: view.quirks.clone(),
        prices: None,
    }
}

/// The template a stored connection was made from, as far as its kind and URL tell.
pub fn template_of<'a>(
    templates: &'a [ConnectionTemplateView],
    view: &ConnectionView,
) -> Option<&'a ConnectionTemplateView> {
    let url = view.base_url.trim_end_matches('/');
    templates.iter().find(|t| {
        !t.base_url.is_empty()
            && t.base_url.trim_end_matches('/') == url
            && ConnectionKind::from_value(&t.kind) == Some(ConnectionKind::from_wire(view.kind))
    })
}

/// A template's name as the form proposes it: none for a custom endpoint.
fn template_name(template: &ConnectionTemplateView) -> String {
    if template.base_url.is_empty() { String::new() } else { template.name.clone() }
}

/// The headers of the form's text, one `Name: value` per line (blank lines skipped); `None` if a
/// line is not a header (RFC 9110 token name, a value without line breaks).
pub fn parse_headers(text: &str) -> Option<Vec<(String, String)>> {
    let mut headers = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        let name = name.trim();
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) {
            return None;
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    Some(headers)
}

/// Keys travel over https only, except to a server on this machine (a model server, an MCP
/// server).
pub fn acceptable_url(url: &str) -> bool {
    let Ok(origin) = Origin::parse(url) else { return false };
    match origin.scheme {
        Scheme::Https => true,
        Scheme::Http => matches!(origin.host.as_str(), "localhost" | "127.0.0.1" | "[::1]"),
        Scheme::Chrome
        | Scheme::Edge
        | Scheme::About
        | Scheme::Javascript
        | Scheme::Data
        | Scheme::Vbscript
        | Scheme::File => false,
    }
}

/// The message for a form `problem` with the field labelled `field`.
pub fn problem_text(lang: Lang, field: Msg, problem: FieldProblem) -> String {
    i18n::format(lang, problem.message(), &[("field", i18n::text(lang, field))])
}

/// What became of the connection editor's last save.
pub type SaveStatus = super::save_status::SaveStatus<(Field, FieldProblem), ConnectionId>;

/// The connection form with the connection it edits and its last save.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionEditor {
    /// The values shown.
    pub form: ConnectionForm,
    /// The stored connection it edits; `None` adds one.
    pub editing: Option<ConnectionId>,
    /// The last save.
    pub status: SaveStatus,
}

impl ConnectionEditor {
    /// A form adding a connection from `template`.
    pub fn add(template: &ConnectionTemplateView) -> ConnectionEditor {
        ConnectionEditor {
            form: ConnectionForm::from_template(template),
            editing: None,
            status: SaveStatus::Idle,
        }
    }

    /// A form editing the stored connection `view`.
    pub fn edit(view: &ConnectionView, templates: &[ConnectionTemplateView]) -> ConnectionEditor {
        ConnectionEditor {
            form: ConnectionForm::edit(view, templates),
            editing: Some(view.id.clone()),
            status: SaveStatus::Idle,
        }
    }

    /// The connection to send, or `None` with the problems recorded.
    pub fn submit(&mut self) -> Option<ConnectionInput> {
        match self.form.validate() {
            Ok(draft) => Some(draft.to_input(self.editing.clone())),
            Err(problems) => {
                self.status = SaveStatus::Invalid(problems);
                None
            }
        }
    }

    /// Records that the save `submission_id` went out while `known` were stored.
    pub fn sent(&mut self, submission_id: SubmissionId, known: Vec<ConnectionId>) {
        self.status.sent(submission_id, known);
    }

    /// Takes the engine's answer to `submission_id` (`refusal` is the reason of a rejection);
    /// returns whether it answered this editor's save.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        self.status.answer(submission_id, refusal)
    }

    /// The connection the save stored, once it is known: the edited one once acknowledged; a
    /// new one as soon as the settings list an id that was not there when it was sent.
    pub fn saved(&self, connections: &[ConnectionView]) -> Option<ConnectionId> {
        let SaveStatus::Waiting(pending) = &self.status else { return None };
        match &self.editing {
            Some(id) => pending.acked.then(|| id.clone()),
            None => {
                connections.iter().map(|c| &c.id).find(|id| !pending.known.contains(id)).cloned()
            }
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
            SaveStatus::Refused(reason) => {
                vec![i18n::format(
                    lang,
                    Msg::NotSaved,
                    &[("message", &i18n::engine_text(lang, reason))],
                )]
            }
            SaveStatus::Idle | SaveStatus::Waiting(_) => Vec::new(),
        }
    }
}

/// A compatibility option of the form: its catalog label and hint, by stored name.
pub fn quirk_text(name: &str) -> Option<(Msg, Msg)> {
    Some(match name {
        "noStreamOptions" => (Msg::QuirkNoStreamOptions, Msg::QuirkNoStreamOptionsHint),
        "thinkTagReasoning" => (Msg::QuirkThinkTags, Msg::QuirkThinkTagsHint),
        "noParallelToolCalls" => (Msg::QuirkOneToolCall, Msg::QuirkOneToolCallHint),
        "maxCompletionTokens" => (Msg::QuirkMaxCompletionTokens, Msg::QuirkMaxCompletionTokensHint),
        "noSystemRole" => (Msg::QuirkNoSystemRole, Msg::QuirkNoSystemRoleHint),
        "noReasoningReplay" => (Msg::QuirkNoReasoningReplay, Msg::QuirkNoReasoningReplayHint),
        "anthropicManualThinking" => (Msg::QuirkManualThinking, Msg::QuirkManualThinkingHint),
        _ => return None,
    })
}

/// How a step of a connection check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepState {
    /// It worked.
    Passed,
    /// It is what failed.
    Failed,
    /// Not reached (an earlier step failed), or it says nothing either way.
    Unchecked,
}

impl StepState {
    /// The `data-state` value.
    pub fn name(self) -> &'static str {
        match self {
            StepState::Passed => "passed",
            StepState::Failed => "failed",
            StepState::Unchecked => "unchecked",
        }
    }
}

/// The steps of a check in order (server, key, streaming, tools) with how each came out, and
/// the sentence that sums it up. A step is marked failed only when the failure names it, so the
/// report never says "reached" and "could not be reached" at once: a server that answered and
/// then stopped is said to have stopped.
pub fn check_steps(
    check: &panelot_protocol::engine::ConnectionCheck,
) -> ([(Msg, StepState); 4], Msg) {
    use panelot_protocol::engine::ConnectionCheckFailure as F;
    let passed = |ok: bool| if ok { StepState::Passed } else { StepState::Unchecked };
    let mut steps = [
        (Msg::StepReached, passed(check.reachable)),
        (Msg::StepKey, passed(check.key_valid)),
        (Msg::StepStreaming, passed(check.streaming)),
        (Msg::StepTools, passed(check.tool_use)),
    ];
    let (failed_step, verdict) = match check.failure {
        None => (None, Msg::VerifyOk),
        Some(F::InvalidKey) => (Some(1), Msg::VerifyInvalidKey),
        Some(F::Unreachable) if !check.reachable => (Some(0), Msg::VerifyUnreachable),
        Some(F::Unreachable) => (None, Msg::VerifyStopped),
        Some(F::NoModel) => (None, Msg::VerifyNoModel),
        Some(F::ProtocolMismatch) => (None, Msg::VerifyProtocolMismatch),
        Some(F::NoToolUse) => (Some(3), Msg::VerifyNoToolUse),
    };
    if let Some(index) = failed_step {
        steps[index].1 = StepState::Failed;
    }
    (steps, verdict)
}

/// How many keys a stored connection has, in words.
pub fn key_count_text(lang: Lang, n: u32) -> String {
    match n {
        0 => i18n::text(lang, Msg::NoKey).to_owned(),
        1 => i18n::text(lang, Msg::OneKey).to_owned(),
        n => i18n::format(lang, Msg::NKeys, &[("n", &n.to_string())]),
    }
}

/// The screen the settings page opens on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsScreen {
    /// No model is configured: the connection form comes first.
    ConnectionForm,
    /// The overview of all sections.
    Overview,
}

/// The first screen, given how many connections exist.
pub fn first_screen(n_connections: usize) -> SettingsScreen {
    if n_connections == 0 { SettingsScreen::ConnectionForm } else { SettingsScreen::Overview }
}

#[cfg(test)]
#[path = "connection_form_tests.rs"]
mod tests;
