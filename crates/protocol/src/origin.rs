//! Origins and origin patterns, parsed by hand so no crate needs a URL library: the one origin
//! parser of the workspace (the gatekeeper, the gateway, the settings page and the providers all
//! read origins through it).
//!
//! The parser is deliberately narrow: it knows http(s), the browser page schemes and the
//! schemes the gatekeeper must recognise to deny them. Anything else is an error, and the
//! gatekeeper treats an unreadable target as a reason to ask, never to allow.

mod idn;

use std::fmt;

/// The schemes the gatekeeper understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scheme {
    /// `http://`
    Http,
    /// `https://`
    Https,
    /// `chrome://` browser pages.
    Chrome,
    /// `edge://` browser pages.
    Edge,
    /// `about:` pages.
    About,
    /// `javascript:` URLs (always denied as a destination).
    Javascript,
    /// `data:` URLs (always denied as a destination).
    Data,
    /// `vbscript:` URLs (always denied as a destination).
    Vbscript,
    /// `file://` URLs.
    File,
}

/// How a scheme spells its origin: with an authority (`x://host`) or opaque (`x:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Authority,
    Opaque,
}

/// Every scheme with its name and shape; the parser and `Display` both read this table.
const SCHEMES: &[(Scheme, &str, Shape)] = &[
    (Scheme::Http, "http", Shape::Authority),
    (Scheme::Https, "https", Shape::Authority),
    (Scheme::Chrome, "chrome", Shape::Authority),
    (Scheme::Edge, "edge", Shape::Authority),
    (Scheme::About, "about", Shape::Opaque),
    (Scheme::Javascript, "javascript", Shape::Opaque),
    (Scheme::Data, "data", Shape::Opaque),
    (Scheme::Vbscript, "vbscript", Shape::Opaque),
    (Scheme::File, "file", Shape::Authority),
];

impl Scheme {
    /// The scheme name, lowercase, without the colon.
    pub fn name(self) -> &'static str {
        SCHEMES.iter().find(|(it, _, _)| *it == self).map_or("", |(_, name, _)| name)
    }

    /// Whether a destination with this scheme is denied outright: these run code or carry a whole
    /// document in the URL, so no page or rule may send the browser there.
    pub fn is_dangerous(self) -> bool {
        match self {
            Scheme::Javascript | Scheme::Data | Scheme::Vbscript => true,
            Scheme::Http
            | Scheme::Https
            | Scheme::Chrome
            | Scheme::Edge
            | Scheme::About
            | Scheme::File => false,
        }
    }

    fn default_port(self) -> Option<u16> {
        match self {
            Scheme::Http => Some(80),
            Scheme::Https => Some(443),
            Scheme::Chrome
            | Scheme::Edge
            | Scheme::About
            | Scheme::Javascript
            | Scheme::Data
            | Scheme::Vbscript
            | Scheme::File => None,
        }
    }

    /// Whether it is a web scheme (http or https).
    pub fn is_web(self) -> bool {
        matches!(self, Scheme::Http | Scheme::Https)
    }

    fn shape(self) -> Shape {
        SCHEMES.iter().find(|(it, _, _)| *it == self).map_or(Shape::Opaque, |(_, _, shape)| *shape)
    }
}

/// A parsed origin: scheme, lowercase host without trailing dots, and a non-default port.
///
/// Opaque schemes (`about:`, `javascript:`, …) have an empty host and no port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// The scheme.
    pub scheme: Scheme,
    /// The host, lowercased, with fullwidth forms folded to ASCII as browsers do; other
    /// internationalized names are left as written (no punycode conversion), see
    /// [`Origin::is_idn`].
    pub host: String,
    /// The port, `None` when absent or equal to the scheme's default.
    pub port: Option<u16>,
}

/// Why a URL or pattern could not be read as an origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    /// The input was empty.
    #[error("empty url")]
    Empty,
    /// The scheme is missing or not one the gatekeeper knows.
    #[error("unknown scheme in {0:?}")]
    UnknownScheme(String),
    /// An authority scheme without `//host`.
    #[error("missing host in {0:?}")]
    MissingHost(String),
    /// The host holds characters a browser would rewrite or reject.
    #[error("invalid host {0:?}")]
    InvalidHost(String),
    /// The port is not a number in 0..=65535.
    #[error("invalid port {0:?}")]
    InvalidPort(String),
    /// A pattern that is none of `*`, an origin, `*.domain` or `scheme:*`.
    #[error("invalid origin pattern {0:?}")]
    InvalidPattern(String),
}

impl Origin {
    /// Parses the origin of a URL.
    ///
    /// Browsers drop tabs and newlines anywhere in a URL and trim surrounding spaces and
    /// control characters, so `java\nscript:` is `javascript:`; we do the same before looking
    /// at the scheme. Backslashes end the authority as they do in browsers for special
    /// schemes, so `https://evil.test\@bank.test` is `evil.test`.
    pub fn parse(url: &str) -> Result<Origin, OriginError> {
        let cleaned: String = url
            .trim_matches(|c: char| c <= ' ')
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        if cleaned.is_empty() {
            return Err(OriginError::Empty);
        }
        let Some((scheme_str, rest)) = cleaned.split_once(':') else {
            return Err(OriginError::UnknownScheme(cleaned));
        };
        let Some(&(scheme, _, shape)) =
            SCHEMES.iter().find(|(_, name, _)| name.eq_ignore_ascii_case(scheme_str))
        else {
            return Err(OriginError::UnknownScheme(cleaned));
        };
        match shape {
            Shape::Opaque => Ok(Origin { scheme, host: String::new(), port: None }),
            Shape::Authority => parse_authority(scheme, rest, &cleaned),
        }
    }

    /// Whether it is a web origin (http or https): what host permissions are granted for.
    pub fn is_web(&self) -> bool {
        self.scheme.is_web()
    }

    /// Whether the host is an internationalized name: non-ASCII after folding, or holding a
    /// punycode (`xn--`) label. Such a host can imitate another site letter for letter
    /// (`pаypal.com` with a Cyrillic `а`), and without the full IDNA tables we cannot tell a
    /// look-alike from a genuine name, so the gatekeeper never lets grants or allow rules cover
    /// it.
    pub fn is_idn(&self) -> bool {
        !self.host.is_ascii() || self.host.split('.').any(|label| label.starts_with("xn--"))
    }

    /// The ASCII origin an internationalized host imitates (`https://xn--pypal-4ve.com`, that
    /// is `pаypal.com` with a Cyrillic `а`, gives `https://paypal.com`), when its punycode
    /// decodes and its homoglyphs map to ASCII; `None` otherwise.
    pub fn look_alike(&self) -> Option<Origin> {
        if !self.is_idn() {
            return None;
        }
        let host = idn::skeleton(&self.host)?;
        Some(Origin { host, ..self.clone() })
    }
}

/// Folds a host the way a browser's IDNA mapping does for the forms that turn into ASCII:
/// fullwidth letters, digits and punctuation (`ｐａｙｐａｌ．com`) and the ideographic full
/// stops become their ASCII selves, then everything is lowercased. Without this,
/// `https://ｐａｙｐａｌ.com` would slip past the denylist while the browser opens paypal.com.
fn fold_host(host: &str) -> String {
    if host.is_ascii() {
        return host.to_ascii_lowercase();
    }
    host.chars()
        .map(|c| match c {
            // U+FF01..=U+FF5E mirror U+0021..=U+007E at a fixed offset.
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            '\u{3002}' | '\u{FF61}' => '.',
            other => other,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

fn parse_authority(scheme: Scheme, rest: &str, whole: &str) -> Result<Origin, OriginError> {
    // Browsers accept any run of slashes after a web scheme (`http:///a.test` is `a.test`),
    // but `file:` takes exactly two: the third starts the path.
    let after_slashes = match scheme {
        Scheme::File => rest.strip_prefix("//").unwrap_or(rest),
        Scheme::Http
        | Scheme::Https
        | Scheme::Chrome
        | Scheme::Edge
        | Scheme::About
        | Scheme::Javascript
        | Scheme::Data
        | Scheme::Vbscript => rest.trim_start_matches(['/', '\\']),
    };
    if rest.len() - after_slashes.len() < 2 {
        return Err(OriginError::MissingHost(whole.to_owned()));
    }
    let authority = after_slashes.split(['/', '\\', '?', '#']).next().unwrap_or_default();
    // Userinfo never names the origin; the last `@` is where browsers split it off.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, it)| it);
    let (host, port) = split_port(host_port)?;
    let folded = fold_host(host);
    // Folding can produce delimiters (`／`, `＠`, `：`) that the browser would have split on had
    // they been typed as ASCII; after mapping they are forbidden host code points, so the
    // browser refuses the URL and so do we.
    if !host.is_ascii() && folded.contains(['/', '\\', '?', '#', '@', ':', '[', ']']) {
        return Err(OriginError::InvalidHost(folded));
    }
    let host = folded.trim_end_matches('.');
    if host.is_empty() {
        if scheme == Scheme::File {
            return Ok(Origin { scheme, host: String::new(), port: None });
        }
        return Err(OriginError::MissingHost(whole.to_owned()));
    }
    // A `%` would be percent-decoded by the browser into a different host, and the other
    // characters are forbidden host code points; refusing them keeps matching honest.
    if host.chars().any(|c| c <= ' ' || matches!(c, '%' | '<' | '>' | '^' | '|' | '"' | '`')) {
        return Err(OriginError::InvalidHost(host.to_owned()));
    }
    let port = port.filter(|it| Some(*it) != scheme.default_port());
    Ok(Origin { scheme, host: host.to_owned(), port })
}

fn split_port(host_port: &str) -> Result<(&str, Option<u16>), OriginError> {
    // IPv6 literals carry colons inside brackets; the port colon comes after `]`.
    let colon = if host_port.starts_with('[') {
        host_port.find(']').and_then(|end| host_port[end..].find(':').map(|it| it + end))
    } else {
        host_port.rfind(':')
    };
    let Some(colon) = colon else {
        return Ok((host_port, None));
    };
    let (host, port) = (&host_port[..colon], &host_port[colon + 1..]);
    if port.is_empty() {
        return Ok((host, None));
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(OriginError::InvalidPort(port.to_owned()));
    }
    match port.parse::<u16>() {
        Ok(it) => Ok((host, Some(it))),
        Err(_) => Err(OriginError::InvalidPort(port.to_owned())),
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scheme.shape() {
            Shape::Opaque => write!(f, "{}:", self.scheme.name()),
            Shape::Authority => {
                write!(f, "{}://{}", self.scheme.name(), self.host)?;
                match self.port {
                    Some(port) => write!(f, ":{port}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Which origins a rule or a sensitive-origin entry covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPattern {
    /// `*`: every target, including calls with no origin.
    Any,
    /// An exact origin: scheme, host and port must all match.
    Exact(Origin),
    /// `*.example.com`: that host and every subdomain, over http or https, any port.
    Domain(String),
    /// `chrome://*`, `about:*`: every origin of one scheme (the only prefix matching).
    Scheme(Scheme),
}

impl OriginPattern {
    /// Parses `*`, `*.domain`, `scheme://*` / `scheme:*`, or a URL read as an exact origin.
    pub fn parse(pattern: &str) -> Result<OriginPattern, OriginError> {
        let pattern = pattern.trim();
        if pattern == "*" {
            return Ok(OriginPattern::Any);
        }
        if let Some(domain) = pattern.strip_prefix("*.") {
            let domain = fold_host(domain);
            let domain = domain.trim_end_matches('.');
            if domain.is_empty() || domain.contains(['/', ':', '*', '@']) {
                return Err(OriginError::InvalidPattern(pattern.to_owned()));
            }
            return Ok(OriginPattern::Domain(domain.to_owned()));
        }
        if let Some(head) = pattern.strip_suffix("://*").or_else(|| pattern.strip_suffix(":*")) {
            let Some(&(scheme, _, _)) =
                SCHEMES.iter().find(|(_, name, _)| name.eq_ignore_ascii_case(head))
            else {
                return Err(OriginError::InvalidPattern(pattern.to_owned()));
            };
            return Ok(OriginPattern::Scheme(scheme));
        }
        if pattern.contains('*') {
            return Err(OriginError::InvalidPattern(pattern.to_owned()));
        }
        Origin::parse(pattern).map(OriginPattern::Exact)
    }

    /// Whether the pattern covers `origin`; `None` (an originless call) only matches `*`.
    pub fn matches(&self, origin: Option<&Origin>) -> bool {
        match (self, origin) {
            (OriginPattern::Any, _) => true,
            (_, None) => false,
            (OriginPattern::Exact(want), Some(origin)) => want == origin,
            (OriginPattern::Domain(domain), Some(origin)) => {
                origin.scheme.is_web()
                    && (origin.host == *domain
                        || origin
                            .host
                            .strip_suffix(domain.as_str())
                            .is_some_and(|head| head.ends_with('.')))
            }
            (OriginPattern::Scheme(scheme), Some(origin)) => origin.scheme == *scheme,
        }
    }

    /// How narrowly the pattern targets: higher wins rule precedence.
    pub fn specificity(&self) -> u8 {
        match self {
            OriginPattern::Any => 0,
            OriginPattern::Scheme(_) => 1,
            OriginPattern::Domain(_) => 2,
            OriginPattern::Exact(_) => 3,
        }
    }
}

#[cfg(test)]
#[path = "origin_tests.rs"]
mod tests;
