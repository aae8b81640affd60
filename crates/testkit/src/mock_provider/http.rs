//! Just enough HTTP/1.1 for the mock: read one request (`Content-Length` or chunked body),
//! write one response head. Every connection carries one exchange and then closes.

use std::io;
use std::io::BufRead;
use std::io::Read;

/// The longest request head (request line and headers) accepted.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The largest request body accepted; far above any real chat request.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One parsed request.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// Path and query as sent.
    pub(crate) target: String,
    /// Names lowercased, in the order received.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// Why a request could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The socket failed or closed early; there is nobody to answer.
    Closed,
    /// The bytes are not an acceptable HTTP/1.1 request; answer 400 with this reason.
    Malformed(String),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Closed
    }
}

impl Request {
    /// The first value of header `name` (lowercase).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The path without the query.
    pub(crate) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// Reads one request. `send_continue` is called before the body is read when the client sent
/// `Expect: 100-continue` (curl does for large bodies and would otherwise wait a second).
pub(crate) fn read_request(
    reader: &mut impl BufRead,
    send_continue: impl FnOnce() -> io::Result<()>,
) -> Result<Request, ReadError> {
    let mut head_budget = MAX_HEAD_BYTES;
    let request_line = read_line(reader, &mut head_budget)?.ok_or(ReadError::Closed)?;
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Malformed(format!("bad request line {request_line:?}")));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Malformed(format!("unsupported version {version:?}")));
    }
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, &mut head_budget)?
            .ok_or_else(|| ReadError::Malformed("headers end early".to_owned()))?;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Malformed(format!("bad header line {line:?}")));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request =
        Request { method: method.to_owned(), target: target.to_owned(), headers, body: Vec::new() };

    if request.header("expect").is_some_and(|value| value.eq_ignore_ascii_case("100-continue")) {
        send_continue()?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|value| value.to_ascii_lowercase().contains("chunked"));
    // RFC 9112 §6.3: chunked framing wins over a Content-Length sent alongside it.
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| ReadError::Malformed(format!("bad content-length {length:?}")))?;
        if length > MAX_BODY_BYTES {
            return Err(ReadError::Malformed(format!("body of {length} bytes is too large")));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(request)
}

/// Decodes a chunked body, discarding chunk extensions and trailers.
fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    loop {
        // A budget per size line: a streamed body may come in very many small chunks.
        let mut line_budget = MAX_HEAD_BYTES;
        let line = read_line(reader, &mut line_budget)?
            .ok_or_else(|| ReadError::Malformed("chunked body ends early".to_owned()))?;
        let size_text = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ReadError::Malformed(format!("bad chunk size {line:?}")))?;
        if size == 0 {
            // Trailers, up to the empty line that ends the body.
            let mut trailer_budget = MAX_HEAD_BYTES;
            while read_line(reader, &mut trailer_budget)?.is_some_and(|line| !line.is_empty()) {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY_BYTES {
            return Err(ReadError::Malformed("chunked body is too large".to_owned()));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0; 2];
        reader.read_exact(&mut crlf)?;
        if &crlf != b"\r\n" {
            return Err(ReadError::Malformed("chunk not followed by CRLF".to_owned()));
        }
    }
}

/// Reads one line without its `\r\n` (a bare `\n` is tolerated); `None` at a clean EOF.
/// `budget` bounds the bytes all lines of one head may take.
fn read_line(reader: &mut impl BufRead, budget: &mut usize) -> Result<Option<String>, ReadError> {
    let mut line = Vec::new();
    let limit = u64::try_from(*budget).unwrap_or(u64::MAX) + 1;
    let n = reader.by_ref().take(limit).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if n > *budget {
        return Err(ReadError::Malformed("request head is too large".to_owned()));
    }
    *budget -= n;
    if line.last() != Some(&b'\n') {
        return Err(ReadError::Closed);
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| ReadError::Malformed("request head is not UTF-8".to_owned()))
}

/// Header names the CORS preflight always allows: what the OpenAI and Anthropic clients send
/// from a browser. Whatever the preflight asks for is allowed on top.
const ALLOWED_HEADERS: &str = "authorization, x-api-key, anthropic-version, anthropic-beta, \
     content-type, anthropic-dangerous-direct-browser-access";

/// A response head: status line, the standard headers (CORS, `Connection: close`), an optional
/// content type and length, then `extra`.
pub(crate) fn response_head(
    status: u16,
    content_type: Option<&str>,
    content_length: Option<usize>,
    extra: &[(String, String)],
) -> String {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nAccess-Control-Allow-Origin: *\r\n\
         Access-Control-Expose-Headers: *\r\nConnection: close\r\n",
        reason_phrase(status)
    );
    if let Some(content_type) = content_type {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    if let Some(length) = content_length {
        head.push_str(&format!("Content-Length: {length}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// The extra headers answering a CORS preflight.
pub(crate) fn preflight_headers(request: &Request) -> Vec<(String, String)> {
    let mut allowed = ALLOWED_HEADERS.to_owned();
    if let Some(requested) = request.header("access-control-request-headers") {
        allowed.push_str(", ");
        allowed.push_str(requested);
    }
    let mut headers = vec![
        ("Access-Control-Allow-Methods".to_owned(), "GET, POST, OPTIONS".to_owned()),
        ("Access-Control-Allow-Headers".to_owned(), allowed),
        ("Access-Control-Max-Age".to_owned(), "600".to_owned()),
    ];
    // Chrome's Private Network Access preflight, sent when a public page calls loopback.
    if request.header("access-control-request-private-network").is_some() {
        headers.push(("Access-Control-Allow-Private-Network".to_owned(), "true".to_owned()));
    }
    headers
}

/// The reason phrase for a status; clients ignore it, people reading a transcript do not.
pub(crate) fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}
