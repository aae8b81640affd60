//! The URLs OAuth deals in, parsed just enough to check and build them: the scheme and host a
//! URL may use (HTTPS, or HTTP on loopback), the canonical resource URI of an MCP server, the
//! well-known metadata locations, and the percent-encoding of queries and form bodies.
//!
//! Deliberately not a general URL parser: anything unusual (user info, a missing host, a port
//! that is not a number) is refused, since every URL here either came from a server we do not
//! trust yet or goes to a browser.

use super::OAuthError;

/// An absolute `http`/`https` URL, split into the parts OAuth compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    /// `http` or `https`, lowercase.
    pub(crate) scheme: &'static str,
    /// The host, lowercase; an IPv6 address keeps its brackets.
    pub(crate) host: String,
    /// The port when it is not the scheme's default.
    pub(crate) port: Option<u16>,
    /// The path as sent (`""` when the URL has none).
    pub(crate) path: String,
    /// The query without its `?`.
    pub(crate) query: Option<String>,
    /// Whether the URL had a `#fragment` (dropped, but resource URIs must not have one).
    pub(crate) had_fragment: bool,
}

impl Url {
    /// Parses `text`, refusing what is not an absolute HTTP(S) URL with a plain host.
    pub(crate) fn parse(text: &str) -> Result<Url, OAuthError> {
        let invalid = |reason: &'static str| OAuthError::InvalidUrl { url: shown(text), reason };
        if text.chars().any(|c| c.is_control() || c == ' ') {
            return Err(invalid("it contains spaces or control characters"));
        }
        let (scheme_text, rest) = text.split_once("://").ok_or(invalid("it is not absolute"))?;
        let scheme = match scheme_text.to_ascii_lowercase().as_str() {
            "https" => "https",
            "http" => "http",
            _ => return Err(invalid("it is neither http nor https")),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((rest, _)) => (rest, true),
            None => (rest, false),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query.to_owned())),
            None => (rest, None),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(invalid("it carries user information"));
        }
        let (host, port_text) = if let Some(inside) = authority.strip_prefix('[') {
            let (address, after) =
                inside.split_once(']').ok_or(invalid("its IPv6 host is open"))?;
            if address.is_empty() || !address.chars().all(|c| c.is_ascii_hexdigit() || c == ':') {
                return Err(invalid("its IPv6 host is malformed"));
            }
            let port = match after {
                "" => None,
                after => Some(after.strip_prefix(':').ok_or(invalid("its port is malformed"))?),
            };
            (format!("[{}]", address.to_ascii_lowercase()), port)
        } else {
            let (host, port) = match authority.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            };
            let allowed = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-';
            if host.is_empty() || !host.chars().all(allowed) {
                return Err(invalid("its host is missing or malformed"));
            }
            (host.to_ascii_lowercase(), port)
        };
        let port = match port_text {
            None | Some("") => None,
            Some(port) => Some(port.parse::<u16>().map_err(|_| invalid("its port is malformed"))?),
        };
        let default_port = if scheme == "https" { 443 } else { 80 };
        Ok(Url {
            scheme,
            host,
            port: port.filter(|port| *port != default_port),
            path: path.to_owned(),
            query,
            had_fragment: fragment,
        })
    }

    /// Parses `text` and refuses plain HTTP anywhere but loopback: tokens, codes and client ids
    /// travel through these URLs.
    pub(crate) fn parse_secure(text: &str) -> Result<Url, OAuthError> {
        let url = Url::parse(text)?;
        if url.scheme == "http" && !url.is_loopback() {
            return Err(OAuthError::InsecureUrl { url: shown(text) });
        }
        Ok(url)
    }

    /// `localhost`, `127.0.0.0/8` or `[::1]`.
    pub(crate) fn is_loopback(&self) -> bool {
        let host = self.host.as_str();
        if host == "localhost" || host.ends_with(".localhost") || host == "[::1]" {
            return true;
        }
        let octets: Vec<&str> = host.split('.').collect();
        octets.len() == 4
            && octets[0] == "127"
            && octets.iter().all(|octet| octet.parse::<u8>().is_ok())
    }

    /// `scheme://host[:port]`.
    pub(crate) fn origin(&self) -> String {
        match self.port {
            Some(port) => format!("{}://{}:{port}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// The path without a trailing `/`, so `/` and `` are both the root (`""`).
    pub(crate) fn trimmed_path(&self) -> &str {
        self.path.strip_suffix('/').unwrap_or(&self.path)
    }

    /// The canonical resource URI ("Canonical Server URI" in the MCP authorization
    /// specification, 2025-06-18): lowercase scheme and host, the port only when not the
    /// default, the path without a trailing slash, the query kept, no fragment.
    pub(crate) fn canonical_resource(&self) -> String {
        let mut canonical = self.origin();
        canonical.push_str(self.trimmed_path());
        if let Some(query) = &self.query {
            canonical.push('?');
            canonical.push_str(query);
        }
        canonical
    }

    /// The URL as text (fragment dropped).
    pub(crate) fn to_text(&self) -> String {
        let mut text = self.origin();
        text.push_str(&self.path);
        if let Some(query) = &self.query {
            text.push('?');
            text.push_str(query);
        }
        text
    }

    /// The query's `name=value` pairs, decoded.
    pub(crate) fn query_pairs(&self) -> Vec<(String, String)> {
        self.query.as_deref().map(form_decode).unwrap_or_default()
    }
}

/// Where the protected-resource metadata of `server` may be (RFC 9728 §3.1), most specific
/// first: with the server's path inserted after the well-known prefix, then at the root.
pub(crate) fn protected_resource_metadata_urls(server: &Url) -> Vec<String> {
    let origin = server.origin();
    let path = server.trimmed_path();
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// Where an authorization server's metadata may be, in the order the MCP authorization
/// specification gives: RFC 8414 with the issuer's path inserted, then OpenID Connect Discovery
/// with the path inserted, then OpenID Connect with the path appended. An issuer without a path
/// has only the two root locations.
pub(crate) fn authorization_server_metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = issuer.origin();
    let path = issuer.trimmed_path();
    if path.is_empty() {
        return vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ];
    }
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ]
}

/// `application/x-www-form-urlencoded` pairs (also a URL query).
pub(crate) fn form_encode(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        percent_encode_into(&mut out, name);
        out.push('=');
        percent_encode_into(&mut out, value);
    }
    out
}

/// Decodes `a=1&b=two%20words`; `+` is a space; undecodable bytes become U+FFFD.
pub(crate) fn form_decode(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name), percent_decode(value))
        })
        .collect()
}

/// Everything but the RFC 3986 unreserved characters is escaped, which is valid both in a
/// query and in a form body.
fn percent_encode_into(out: &mut String, text: &str) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = text.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok());
                match hex {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A URL as shown in an error: cut, since it may be a server's garbage.
pub(crate) fn shown(text: &str) -> String {
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
#[path = "uri_tests.rs"]
mod tests;
