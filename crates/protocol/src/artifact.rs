//! Artifacts (documents the agent saves in a thread with `artifact_create`), as the engine and
//! the UI both read them from the call's parameters: what kind of document a filename and
//! optional MIME type make (how a viewer shows it), the type a download is saved with, which
//! names can name a file, and how a name or a document travels in a URL. Not a wire type:
//! nothing here changes a schema hash.

/// The parameters of an `artifact_create` call (and of nothing else).
pub mod params {
    /// The file's name.
    pub const FILENAME: &str = "filename";
    /// The MIME type the model gave, if any.
    pub const MIME: &str = "mime";
    /// The document's text.
    pub const CONTENT: &str = "content";
}

/// The parameters the engine adds to a dispatched `download` of an artifact (never stored, never
/// from the model): its content and the type it is saved with. The host reads them only when
/// the call names an `artifact`.
pub mod handed {
    /// The artifact's text.
    pub const CONTENT: &str = "artifactContent";
    /// Its MIME type.
    pub const MIME: &str = "artifactMime";
}

/// Longest filename, in characters (the catalog's schema says the same).
pub const FILENAME_MAX_CHARS: usize = 160;

/// How a document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArtifactKind {
    /// Markdown: rendered.
    Markdown,
    /// HTML: rendered in a sandboxed frame, never with extension privileges.
    Html,
    /// Comma-separated values: shown as text.
    Csv,
    /// JSON: shown as text.
    Json,
    /// Source code: shown as text.
    Code,
    /// Anything else: shown as text.
    Text,
}

/// File extensions read as source code.
const CODE_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "mjs", "ts", "tsx", "jsx", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs",
    "go", "rb", "php", "swift", "sh", "bash", "zsh", "ps1", "sql", "css", "scss", "yaml", "yml",
    "toml", "xml", "svg", "lua", "r", "scala", "dart", "ini",
];

impl ArtifactKind {
    /// The kind of a document named `filename`, typed `mime` when the model said: the MIME type
    /// decides when it names one of the kinds, else the extension does.
    pub fn of(filename: &str, mime: Option<&str>) -> ArtifactKind {
        let mime = mime.unwrap_or_default().split(';').next().unwrap_or_default().trim();
        let by_mime = match mime.to_ascii_lowercase().as_str() {
            "text/markdown" | "text/x-markdown" => Some(ArtifactKind::Markdown),
            "text/html" | "application/xhtml+xml" => Some(ArtifactKind::Html),
            "text/csv" => Some(ArtifactKind::Csv),
            "application/json" => Some(ArtifactKind::Json),
            _ => None,
        };
        if let Some(kind) = by_mime {
            return kind;
        }
        let extension = filename
            .rsplit_once('.')
            .map(|(_, extension)| extension.to_ascii_lowercase())
            .unwrap_or_default();
        match extension.as_str() {
            "md" | "markdown" => ArtifactKind::Markdown,
            "html" | "htm" => ArtifactKind::Html,
            "csv" => ArtifactKind::Csv,
            "json" => ArtifactKind::Json,
            it if CODE_EXTENSIONS.contains(&it) => ArtifactKind::Code,
            _ => ArtifactKind::Text,
        }
    }

    /// Its name for the model and in logs.
    pub fn name(self) -> &'static str {
        match self {
            ArtifactKind::Markdown => "Markdown",
            ArtifactKind::Html => "HTML",
            ArtifactKind::Csv => "CSV",
            ArtifactKind::Json => "JSON",
            ArtifactKind::Code => "code",
            ArtifactKind::Text => "text",
        }
    }
}

/// The MIME type a download of the document is saved with: the model's, else one for its kind.
/// Text is UTF-8, said so, so a viewer opens it right.
pub fn download_mime(filename: &str, mime: Option<&str>) -> String {
    if let Some(mime) = mime.map(str::trim).filter(|mime| valid_mime(mime)) {
        return mime.to_owned();
    }
    let base = match ArtifactKind::of(filename, None) {
        ArtifactKind::Markdown => "text/markdown",
        ArtifactKind::Html => "text/html",
        ArtifactKind::Csv => "text/csv",
        ArtifactKind::Json => "application/json",
        ArtifactKind::Code | ArtifactKind::Text => "text/plain",
    };
    format!("{base};charset=utf-8")
}

/// Whether `mime` looks like `type/subtype[;params]` with nothing that would break a data URL.
fn valid_mime(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default();
    let Some((kind, sub)) = essence.split_once('/') else { return false };
    let token = |part: &str| {
        !part.is_empty()
            && part.chars().all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    token(kind) && token(sub) && !mime.contains([',', '\n', '\r'])
}

/// Why `name` cannot name a saved file, for the model: empty, too long, spaces around it, a
/// folder (`/`, `\`), a control character, a character Windows refuses in names
/// (`< > : " | ? *`), or only dots. `None` when it can.
pub fn filename_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("a filename cannot be empty".to_owned());
    }
    if name.chars().count() > FILENAME_MAX_CHARS {
        return Some(format!("a filename has at most {FILENAME_MAX_CHARS} characters"));
    }
    if name.trim() != name {
        return Some(format!("\"{name}\" starts or ends with spaces; remove them"));
    }
    if name.contains(['/', '\\']) {
        return Some(format!("\"{name}\" names a folder; give a file name without / or \\"));
    }
    if name.chars().any(char::is_control) {
        return Some("a filename cannot hold control characters (line breaks, tabs)".to_owned());
    }
    if let Some(bad) = name.chars().find(|c| "<>:\"|?*".contains(*c)) {
        return Some(format!("a filename cannot hold `{bad}`"));
    }
    if name.chars().all(|c| c == '.') {
        return Some(format!("\"{name}\" is not a file name"));
    }
    None
}

/// `text` percent-encoded as `encodeURIComponent` does: for a `data:` URL of a document, or an
/// artifact's name in a query.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[path = "artifact_tests.rs"]
mod tests;
