//! The connection form of the options page: what was typed, its validation, and the engine's
//! form of a new connection; and the screen the options page opens on.

use panelot_protocol::Origin;
use panelot_protocol::Scheme;

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

    /// The value of the form's `<select>`.
    pub fn value(self) -> &'static str {
        match self {
            ConnectionKind::OpenAiCompatible => "openai",
            ConnectionKind::Anthropic => "anthropic",
        }
    }

    /// The kind for a `<select>` value.
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

    /// Base URL proposed for a new connection of this kind.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ConnectionKind::OpenAiCompatible => "https://api.openai.com/v1",
            ConnectionKind::Anthropic => "https://api.anthropic.com",
        }
    }
}

/// The connection form as typed: raw text, validated on save.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConnectionForm {
    /// Wire format.
    pub kind: ConnectionKind,
    /// Name shown in model pickers.
    pub name: String,
    /// Endpoint base URL.
    pub base_url: String,
    /// API key (never shown again once saved).
    pub api_key: String,
    /// Model used by default.
    pub default_model: String,
    /// Extra headers, one `Name: value` per line.
    pub headers: String,
    /// Provider quirks switched on.
    pub quirks: Vec<String>,
}

/// A field of the connection form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Name.
    Name,
    /// Base URL.
    BaseUrl,
    /// API key.
    ApiKey,
    /// Default model.
    DefaultModel,
    /// Extra headers.
    Headers,
}

impl Field {
    /// Catalog key of the field's label.
    pub fn label(self) -> Msg {
        match self {
            Field::Name => Msg::ConnectionName,
            Field::BaseUrl => Msg::BaseUrl,
            Field::ApiKey => Msg::ApiKey,
            Field::DefaultModel => Msg::DefaultModel,
            Field::Headers => Msg::CustomHeaders,
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
        }
    }
}

/// A validated connection, ready to hand to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionDraft {
    /// Wire format.
    pub kind: ConnectionKind,
    /// Name, trimmed.
    pub name: String,
    /// Base URL without a trailing slash.
    pub base_url: String,
    /// API key, trimmed.
    pub api_key: String,
    /// Default model, trimmed.
    pub default_model: String,
    /// Extra headers as (name, value), in form order.
    pub headers: Vec<(String, String)>,
    /// Provider quirks switched on.
    pub quirks: Vec<String>,
}

impl ConnectionForm {
    /// An empty form for `kind` with its usual base URL.
    pub fn new(kind: ConnectionKind) -> ConnectionForm {
        ConnectionForm {
            kind,
            base_url: kind.default_base_url().to_owned(),
            ..ConnectionForm::default()
        }
    }

    /// Checks every field; all problems at once, in form order.
    pub fn validate(&self) -> Result<ConnectionDraft, Vec<(Field, FieldProblem)>> {
        let mut problems = Vec::new();
        // A key is optional: model servers on this machine (Ollama, LM Studio) need none.
        let required = [
            (Field::Name, &self.name),
            (Field::BaseUrl, &self.base_url),
            (Field::DefaultModel, &self.default_model),
        ];
        for (field, value) in required {
            if value.trim().is_empty() {
                problems.push((field, FieldProblem::Required));
            } else if field == Field::BaseUrl && !acceptable_url(value.trim()) {
                problems.push((field, FieldProblem::BadUrl));
            }
        }
        let headers = parse_headers(&self.headers);
        if headers.is_none() {
            problems.push((Field::Headers, FieldProblem::BadHeader));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(ConnectionDraft {
            headers: headers.unwrap_or_default(),
            quirks: self.quirks.clone(),
            kind: self.kind,
            name: self.name.trim().to_owned(),
            base_url: self.base_url.trim().trim_end_matches('/').to_owned(),
            api_key: self.api_key.trim().to_owned(),
            default_model: self.default_model.trim().to_owned(),
        })
    }
}

impl ConnectionDraft {
    /// The engine's form of a new connection.
    pub fn to_input(&self) -> panelot_protocol::engine::ConnectionInput {
        use panelot_protocol::engine::ConnectionKind as Wire;
        panelot_protocol::engine::ConnectionInput {
            id: None,
            name: self.name.clone(),
            kind: match self.kind {
                ConnectionKind::OpenAiCompatible => Wire::Openai,
                ConnectionKind::Anthropic => Wire::Anthropic,
            },
            base_url: self.base_url.clone(),
            api_keys: Some(if self.api_key.is_empty() {
                Vec::new()
            } else {
                vec![self.api_key.clone()]
            }),
            enabled: true,
            model_ids: vec![self.default_model.clone()],
            // A new connection has no stored headers to keep: `None` and "none" agree.
            custom_headers: (!self.headers.is_empty()).then(|| {
                self.headers
                    .iter()
                    .map(|(name, value)| panelot_protocol::engine::HeaderInput {
                        name: name.clone(),
                        value: value.clone(),
                    })
                    .collect()
            }),
            quirks: self.quirks.clone(),
        }
    }
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

/// Keys travel over https only, except to a model server on this machine.
fn acceptable_url(url: &str) -> bool {
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
