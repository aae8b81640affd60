//! The HTTP exchanges of the flow: a `GET` of a metadata document and a `POST` of a form or a
//! JSON body, each answer read within the budget and decoded into its typed shape.

use panelot_core::env::AbortSignal;
use panelot_providers::HeaderValue;
use panelot_providers::Http;
use panelot_providers::HttpRequest;
use panelot_providers::HttpResponse;
use panelot_providers::Method;
use serde::de::DeserializeOwned;

use super::OAuthError;
use super::Step;
use super::uri::Url;
use crate::McpError;
use crate::client::read_capped;

/// Bytes of an error body kept for the message.
const EXCERPT_BYTES: usize = 300;

/// An answer read whole within its budget.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as `T`.
    pub(crate) fn decode<T: DeserializeOwned>(&self, step: Step) -> Result<T, OAuthError> {
        serde_json::from_slice(&self.body).map_err(|err| {
            let mut reason = err.to_string();
            crate::validate::cut(&mut reason, 200);
            OAuthError::Malformed { step, reason }
        })
    }

    /// The error for a status we did not expect.
    pub(crate) fn status_error(&self, step: Step) -> OAuthError {
        let mut excerpt: String = String::from_utf8_lossy(&self.body)
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        crate::validate::cut(&mut excerpt, EXCERPT_BYTES);
        OAuthError::Status { step, status: self.status, excerpt: excerpt.trim().to_owned() }
    }
}

/// `GET url` asking for JSON.
pub(crate) async fn get<H: Http>(
    http: &H,
    limit: usize,
    step: Step,
    url: &Url,
    abort: &AbortSignal,
) -> Result<Answer, OAuthError> {
    let headers = vec![accept()];
    let request =
        HttpRequest { method: Method::Get, url: url.to_text(), headers, body: Vec::new() };
    read(http.send(request, abort.clone()).await?, limit, step).await
}

/// `POST url` with `body` of `content_type`, asking for JSON.
pub(crate) async fn post<H: Http>(
    http: &H,
    limit: usize,
    step: Step,
    url: &Url,
    content_type: &str,
    body: Vec<u8>,
    abort: &AbortSignal,
) -> Result<Answer, OAuthError> {
    let headers =
        vec![accept(), ("content-type".to_owned(), HeaderValue::Plain(content_type.to_owned()))];
    let request = HttpRequest { method: Method::Post, url: url.to_text(), headers, body };
    read(http.send(request, abort.clone()).await?, limit, step).await
}

fn accept() -> (String, HeaderValue) {
    ("accept".to_owned(), HeaderValue::Plain("application/json".to_owned()))
}

/// Reads the whole body, or fails once it passes `limit` (an error body is only excerpted).
async fn read(mut response: HttpResponse, limit: usize, step: Step) -> Result<Answer, OAuthError> {
    let status = response.status;
    let bytes = read_capped(response.body.as_mut(), limit + 1).await;
    let bytes = bytes.map_err(|err| from_read(err, step))?;
    if bytes.len() > limit {
        if !(200..300).contains(&status) {
            return Ok(Answer { status, body: bytes[..EXCERPT_BYTES.min(limit)].to_vec() });
        }
        return Err(OAuthError::TooLarge { step, limit });
    }
    Ok(Answer { status, body: bytes })
}

/// `read_capped` only fails with the transport's errors.
fn from_read(err: McpError, step: Step) -> OAuthError {
    match err {
        McpError::Aborted => OAuthError::Aborted,
        McpError::Transport(err) => OAuthError::Transport(err),
        other => OAuthError::Malformed { step, reason: other.to_string() },
    }
}
