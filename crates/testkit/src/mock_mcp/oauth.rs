//! The OAuth side of the mock ([`MockOAuth`](super::MockOAuth)): one server that is both the
//! protected resource and its authorization server, at issuer `http://<host>/oauth` (a path,
//! so clients must insert it into the well-known locations).
//!
//! | endpoint | what it does |
//! |----------|--------------|
//! | `/.well-known/oauth-protected-resource/mcp` | the resource metadata (RFC 9728) |
//! | `/.well-known/oauth-authorization-server/oauth` | RFC 8414 metadata, unless only an OIDC location is configured |
//! | `/.well-known/openid-configuration/oauth`, `/oauth/.well-known/openid-configuration` | OIDC locations, when configured |
//! | `POST /oauth/register` | dynamic client registration (RFC 7591), public clients only |
//! | `GET /oauth/authorize` | checks the request and redirects (302) at once to the redirect URI with `code`, `state` and `iss` (or `error=access_denied`) |
//! | `POST /oauth/token` | `authorization_code` (PKCE S256 and `resource` checked) and `refresh_token` grants |
//!
//! Requests to `/mcp` need a live access token (401 with a challenge otherwise); calling the
//! `admin` tool needs the `mcp:admin` scope (403 `insufficient_scope` otherwise).

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use serde_json::json;
use sha2::Digest as _;
use sha2::Sha256;

use super::MetadataLocation;
use super::MockOAuth;
use super::Shared;
use super::SpoiledMetadata;
use super::serve::Out;
use crate::mock_provider::http::Request;

/// The scope every token gets when none is asked for, and the one the first challenge names.
pub(super) const BASE_SCOPE: &str = "mcp:tools";
/// The scope the `admin` tool needs.
pub(super) const ADMIN_SCOPE: &str = "mcp:admin";

/// What the authorization server remembers.
#[derive(Debug, Default)]
pub(super) struct OAuthState {
    /// Registered clients: id → redirect URIs.
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, CodeGrant>,
    /// Access tokens → their scopes; expired ones are removed.
    access: HashMap<String, Vec<String>>,
    /// Refresh tokens → (client id, scopes).
    refresh: HashMap<String, (String, Vec<String>)>,
    next: u64,
    /// Every token request's form, in order.
    pub(super) token_requests: Vec<Vec<(String, String)>>,
    /// The resource the last resource metadata named, for an authorization server on a host
    /// of its own (which cannot tell it from its own address).
    resource: Option<String>,
}

#[derive(Debug)]
struct CodeGrant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scopes: Vec<String>,
}

impl OAuthState {
    /// Forgets every access token, as if they had all expired.
    pub(super) fn expire_access_tokens(&mut self) {
        self.access.clear();
    }

    fn next(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}-{}", self.next)
    }
}

/// The base URL of this server as the client reached it.
fn base(request: &Request) -> String {
    format!("http://{}", request.header("host").unwrap_or("127.0.0.1"))
}

/// The authorization server's base URL: this server's, or the configured host's on this port.
fn authorization_base(request: &Request, config: &MockOAuth) -> String {
    let Some(host) = &config.authorization_host else { return base(request) };
    let reached = request.header("host").unwrap_or("127.0.0.1");
    match reached.rsplit_once(':') {
        Some((_, port)) => format!("http://{host}:{port}"),
        None => format!("http://{host}"),
    }
}

/// The resource tokens are for: this server's `/mcp`, or the one the resource metadata named
/// when the authorization server has a host of its own.
fn resource(shared: &Shared, config: &MockOAuth, request: &Request) -> String {
    let named =
        config.authorization_host.as_ref().and_then(|_| shared.lock().oauth.resource.clone());
    named.unwrap_or_else(|| format!("{}/mcp", base(request)))
}

/// The challenge for requests without (enough of) a token.
fn challenge(request: &Request, config: &MockOAuth, extra: &str) -> String {
    let mut challenge = String::from("Bearer ");
    if config.challenge_metadata_url {
        let base = base(request);
        challenge.push_str(&format!(
            "resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", "
        ));
    }
    challenge.push_str(extra);
    challenge
}

/// Checks the bearer token of a request to `/mcp`; `Err` has been answered (401 or 403).
pub(super) fn guard(
    shared: &Shared,
    config: &MockOAuth,
    request: &Request,
    body: Option<&Value>,
    out: &mut Out<'_>,
) -> Result<(), std::io::Result<()>> {
    let token = request.header("authorization").and_then(|value| value.strip_prefix("Bearer "));
    let scopes = token.and_then(|token| shared.lock().oauth.access.get(token).cloned());
    let Some(scopes) = scopes else {
        let extra = match token {
            Some(_) => {
                "error=\"invalid_token\", error_description=\"The token expired\"".to_owned()
            }
            None => format!("scope=\"{BASE_SCOPE}\""),
        };
        let header = ("WWW-Authenticate".to_owned(), challenge(request, config, &extra));
        return Err(out.text(401, &[header], "unauthorized"));
    };
    let calls_admin = body.is_some_and(|body| {
        body.get("method").and_then(Value::as_str) == Some("tools/call")
            && body.pointer("/params/name").and_then(Value::as_str) == Some("admin")
    });
    if calls_admin && !scopes.iter().any(|scope| scope == ADMIN_SCOPE) {
        let extra = format!("error=\"insufficient_scope\", scope=\"{ADMIN_SCOPE}\"");
        let header = ("WWW-Authenticate".to_owned(), challenge(request, config, &extra));
        return Err(out.text(403, &[header], "insufficient scope"));
    }
    Ok(())
}

/// Answers the OAuth endpoints; `None` when `request` is not for one of them.
pub(super) fn route(
    shared: &Shared,
    config: &MockOAuth,
    request: &Request,
    out: &mut Out<'_>,
) -> Option<std::io::Result<()>> {
    let base = base(request);
    let issuer = format!("{base}/oauth");
    // An authorization server of its own host answers without CORS headers.
    let own_host = config.authorization_host.as_ref().is_some_and(|host| {
        request.header("host").is_some_and(|reached| reached.split(':').next() == Some(host))
    });
    if own_host {
        out.without_cors();
    }
    let served = match (request.method.as_str(), request.path()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => {
            let resource = match config.spoil {
                Some(SpoiledMetadata::ResourceMismatch) => format!("{base}/other"),
                _ => format!("{base}/mcp"),
            };
            shared.lock().oauth.resource = Some(resource.clone());
            let metadata = json!({
                "resource": resource,
                "authorization_servers": [format!("{}/oauth", authorization_base(request, config))],
                "scopes_supported": [BASE_SCOPE, ADMIN_SCOPE],
            });
            metadata_document(config, metadata, out)
        }
        ("GET", path) if path == metadata_path(config.metadata) => {
            let issuer = match config.spoil {
                Some(SpoiledMetadata::IssuerMismatch) => format!("{base}/elsewhere"),
                _ => issuer.clone(),
            };
            let mut metadata = json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{base}/oauth/authorize"),
                "token_endpoint": format!("{base}/oauth/token"),
                "registration_endpoint": format!("{base}/oauth/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": [BASE_SCOPE, ADMIN_SCOPE],
            });
            match config.spoil {
                Some(SpoiledMetadata::NoS256) => {
                    metadata["code_challenge_methods_supported"] = json!(["plain"]);
                }
                Some(SpoiledMetadata::NoChallengeMethods) => {
                    if let Some(object) = metadata.as_object_mut() {
                        object.remove("code_challenge_methods_supported");
                    }
                }
                _ => {}
            }
            metadata_document(config, metadata, out)
        }
        ("POST", "/oauth/register") => register(shared, request, out),
        ("GET", "/oauth/authorize") => authorize(shared, config, request, &issuer, out),
        ("POST", "/oauth/token") => token(shared, config, request, out),
        (_, path) if path.starts_with("/.well-known/") || path.starts_with("/oauth/") => {
            out.text(404, &[], "not found")
        }
        _ => return None,
    };
    Some(served)
}

/// Where the authorization server metadata is served (issuer path `/oauth`).
fn metadata_path(location: MetadataLocation) -> &'static str {
    match location {
        MetadataLocation::Rfc8414 => "/.well-known/oauth-authorization-server/oauth",
        MetadataLocation::OidcInserted => "/.well-known/openid-configuration/oauth",
        MetadataLocation::OidcAppended => "/oauth/.well-known/openid-configuration",
    }
}

/// A metadata document, spoiled as configured.
fn metadata_document(
    config: &MockOAuth,
    metadata: Value,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    match config.spoil {
        Some(SpoiledMetadata::Garbage) => out.body(200, "application/json", &[], b"<html>nope"),
        Some(SpoiledMetadata::Oversized(bytes)) => {
            let mut metadata = metadata;
            metadata["padding"] = json!("p".repeat(bytes));
            out.body(200, "application/json", &[], metadata.to_string().as_bytes())
        }
        _ => out.body(200, "application/json", &[], metadata.to_string().as_bytes()),
    }
}

fn register(shared: &Shared, request: &Request, out: &mut Out<'_>) -> std::io::Result<()> {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let redirect_uris: Vec<String> = body
        .get("redirect_uris")
        .and_then(Value::as_array)
        .map(|uris| uris.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let public = body.get("token_endpoint_auth_method").and_then(Value::as_str) == Some("none");
    if redirect_uris.is_empty() || !public {
        let error = json!({"error": "invalid_client_metadata", "error_description": "public clients with redirect URIs only"});
        return out.body(400, "application/json", &[], error.to_string().as_bytes());
    }
    let client_id = {
        let mut state = shared.lock();
        let client_id = state.oauth.next("client");
        state.oauth.clients.insert(client_id.clone(), redirect_uris);
        client_id
    };
    let mut registered = body;
    registered["client_id"] = json!(client_id);
    out.body(201, "application/json", &[], registered.to_string().as_bytes())
}

fn authorize(
    shared: &Shared,
    config: &MockOAuth,
    request: &Request,
    issuer: &str,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let query = request.target.split_once('?').map_or("", |(_, query)| query);
    let params = form_decode(query);
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    let redirect_uri = param("redirect_uri");
    let known = shared
        .lock()
        .oauth
        .clients
        .get(param("client_id"))
        .is_some_and(|uris| uris.iter().any(|uri| uri == redirect_uri));
    // An unknown client or redirect URI must not be redirected to (RFC 6749 §4.1.2.1).
    if !known {
        return out.text(400, &[], "unknown client or redirect URI");
    }
    let resource = resource(shared, config, request);
    let valid = param("response_type") == "code"
        && param("code_challenge_method") == "S256"
        && !param("code_challenge").is_empty()
        && !param("state").is_empty()
        && param("resource") == resource;
    let mut location = format!("{redirect_uri}?");
    let mut reply = vec![("state", param("state").to_owned()), ("iss", issuer.to_owned())];
    if !valid {
        reply.push(("error", "invalid_request".to_owned()));
    } else if config.deny {
        reply.push(("error", "access_denied".to_owned()));
        reply.push(("error_description", "The user said no".to_owned()));
    } else {
        let scopes: Vec<String> = match param("scope") {
            "" => vec![BASE_SCOPE.to_owned()],
            scope => scope.split(' ').map(str::to_owned).collect(),
        };
        let mut state = shared.lock();
        let code = state.oauth.next("code");
        state.oauth.codes.insert(
            code.clone(),
            CodeGrant {
                client_id: param("client_id").to_owned(),
                redirect_uri: redirect_uri.to_owned(),
                challenge: param("code_challenge").to_owned(),
                scopes,
            },
        );
        reply.push(("code", code));
    }
    location.push_str(&form_encode(&reply));
    out.text(302, &[("Location".to_owned(), location)], "")
}

fn token(
    shared: &Shared,
    config: &MockOAuth,
    request: &Request,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let form_text = String::from_utf8_lossy(&request.body).into_owned();
    let form = form_decode(&form_text);
    shared.lock().oauth.token_requests.push(form_decode_ordered(&form_text));
    let param = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let refuse = |out: &mut Out<'_>, error: &str, description: &str| {
        let body = json!({"error": error, "error_description": description});
        out.body(400, "application/json", &[], body.to_string().as_bytes())
    };
    if param("resource") != resource(shared, config, request) {
        return refuse(out, "invalid_target", "the resource is not this server");
    }
    let mut state = shared.lock();
    let (client_id, scopes, rotate) = match param("grant_type") {
        "authorization_code" => {
            let Some(grant) = state.oauth.codes.remove(param("code")) else {
                return refuse(out, "invalid_grant", "unknown or used code");
            };
            let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(param("code_verifier")));
            if challenge != grant.challenge {
                return refuse(out, "invalid_grant", "PKCE verification failed");
            }
            if grant.client_id != param("client_id") || grant.redirect_uri != param("redirect_uri")
            {
                return refuse(out, "invalid_grant", "client or redirect URI differ");
            }
            (grant.client_id, grant.scopes, true)
        }
        "refresh_token" => {
            let Some((client_id, scopes)) =
                state.oauth.refresh.get(param("refresh_token")).cloned()
            else {
                return refuse(out, "invalid_grant", "unknown refresh token");
            };
            if client_id != param("client_id") {
                return refuse(out, "invalid_grant", "another client's refresh token");
            }
            if config.rotate_refresh_tokens {
                state.oauth.refresh.remove(param("refresh_token"));
            }
            (client_id, scopes, config.rotate_refresh_tokens)
        }
        _ => return refuse(out, "unsupported_grant_type", "only code and refresh"),
    };
    let access_token = state.oauth.next("access");
    state.oauth.access.insert(access_token.clone(), scopes.clone());
    let mut tokens = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": config.token_lifetime_s,
        "scope": scopes.join(" "),
    });
    if rotate {
        let refresh_token = state.oauth.next("refresh");
        state.oauth.refresh.insert(refresh_token.clone(), (client_id, scopes));
        tokens["refresh_token"] = json!(refresh_token);
    }
    drop(state);
    out.body(200, "application/json", &[], tokens.to_string().as_bytes())
}

fn form_decode(text: &str) -> HashMap<String, String> {
    form_decode_ordered(text).into_iter().collect()
}

fn form_decode_ordered(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let hex = text.get(i + 1..i + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
                continue;
            }
            (b'+', _) => out.push(b' '),
            (byte, _) => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn form_encode(pairs: &[(&str, String)]) -> String {
    let encode = |text: &str| {
        text.bytes()
            .map(|byte| {
                if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                    char::from(byte).to_string()
                } else {
                    format!("%{byte:02X}")
                }
            })
            .collect::<String>()
    };
    pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}
