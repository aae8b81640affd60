//! Many made-up origins on one loopback listener, recording every request.
//!
//! [`Sites::start`] listens on `127.0.0.1` at a random port. Chromium started with
//! [`loopback_hosts`](crate::chromium::loopback_hosts)`(&["*.test"])` resolves `shop.test`,
//! `bank.test`, `evil.test`, … to that address, so `http://shop.test:PORT/` and
//! `http://evil.test:PORT/` are different origins served by the same listener, told apart by
//! the `Host` header. Pages are added per host and path; a path with no page answers `404`,
//! except that a `POST` with no page answers a small "received" page (a form submission always
//! lands somewhere, as on a real site).
//!
//! **The log** is what makes "the action did not happen" checkable: every request that reaches
//! the listener is recorded ([`SiteRequest`]: method, host, path, query, body and the decoded
//! fields of a form post) before it is answered, with a sequence number, so a test can take a
//! [`Sites::mark`] before an action and read [`Sites::requests_since`] after it. The log keeps the
//! newest [`MAX_LOGGED`] requests and at most [`MAX_BODY`] bytes of each body, so a long test or a
//! runaway page cannot grow it without bound.
//!
//! Plain HTTP/1.1, one request per connection (`Connection: close`), a thread per connection.
//!
//! ```no_run
//! use panelot_testkit::sites::Sites;
//!
//! let sites = Sites::start()?;
//! sites.add_page("shop.test", "/", "<!doctype html><title>Shop</title>");
//! let url = sites.url("shop.test", "/"); // http://shop.test:PORT/
//! let mark = sites.mark();
//! // … drive the browser …
//! assert!(sites.requests_since(mark).iter().all(|r| r.host != "evil.test"));
//! # Ok::<(), anyhow::Error>(())
//! ```

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Write;
use std::net::Shutdown;
use std::net::TcpListener;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::PoisonError;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use anyhow::Context;

/// How many requests the log keeps; older ones are dropped first.
pub const MAX_LOGGED: usize = 4096;
/// How many bytes of a request body are kept (and read: the rest is left unread).
pub const MAX_BODY: usize = 64 * 1024;
/// How long a silent client may hold a connection thread.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// One request as the listener received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRequest {
    /// Position in the order of arrival, from 0; see [`Sites::mark`].
    pub seq: u64,
    /// `GET`, `POST`, …
    pub method: String,
    /// The `Host` header without its port, lowercased (`shop.test`).
    pub host: String,
    /// The path, without the query.
    pub path: String,
    /// The query, without the `?`.
    pub query: Option<String>,
    /// The body (at most [`MAX_BODY`] bytes), as text.
    pub body: String,
    /// The fields of an `application/x-www-form-urlencoded` body, decoded, in order; also the
    /// query's fields for a `GET` form submission.
    pub form: Vec<(String, String)>,
    /// The `Cookie` header, when the request carried one.
    pub cookie: Option<String>,
}

impl SiteRequest {
    /// The first value of form (or query) field `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// Whether `text` appears anywhere the request carried data: query, body or a decoded field.
    pub fn carries(&self, text: &str) -> bool {
        self.query.as_deref().is_some_and(|q| q.contains(text) || decode(q).contains(text))
            || self.body.contains(text)
            || self.form.iter().any(|(key, value)| key.contains(text) || value.contains(text))
    }
}

/// What a registered path answers.
#[derive(Debug, Clone)]
enum Answer {
    Html(String),
    Redirect(String),
}

#[derive(Debug, Default)]
struct State {
    pages: BTreeMap<(String, String), Answer>,
    log: VecDeque<SiteRequest>,
    next_seq: u64,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    shutting_down: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The running listener; dropping it stops accepting connections.
#[derive(Debug)]
pub struct Sites {
    port: u16,
    shared: Arc<Shared>,
}

impl Sites {
    /// Listens on `127.0.0.1:<random port>`.
    pub fn start() -> anyhow::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).context("binding the sites listener")?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            shutting_down: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        std::thread::Builder::new().name("sites-accept".to_owned()).spawn(move || {
            for stream in listener.incoming() {
                if accepting.shutting_down.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&accepting);
                // A connection whose thread cannot start is dropped; the browser sees a reset.
                let _ =
                    std::thread::Builder::new().name("sites-conn".to_owned()).spawn(move || {
                        // A client that hangs up early is not the test's concern.
                        let _ = serve(&stream, &shared);
                        let _ = stream.shutdown(Shutdown::Both);
                    });
            }
        })?;
        Ok(Sites { port, shared })
    }

    /// The port every host is served on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://<host>:<port>`, the origin of `host`.
    pub fn origin(&self, host: &str) -> String {
        format!("http://{host}:{}", self.port)
    }

    /// `http://<host>:<port><path>`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("{}{path}", self.origin(host))
    }

    /// Adds (or replaces) the page `host` serves at `path` (starting with `/`).
    pub fn add_page(&self, host: &str, path: &str, html: impl Into<String>) {
        let key = (host.to_ascii_lowercase(), path.to_owned());
        self.shared.lock().pages.insert(key, Answer::Html(html.into()));
    }

    /// Makes `host` answer `path` with a `302` to `location` (any URL).
    pub fn add_redirect(&self, host: &str, path: &str, location: &str) {
        let key = (host.to_ascii_lowercase(), path.to_owned());
        self.shared.lock().pages.insert(key, Answer::Redirect(location.to_owned()));
    }

    /// The sequence number the next request will get: requests after this call have
    /// `seq >= mark`.
    pub fn mark(&self) -> u64 {
        self.shared.lock().next_seq
    }

    /// Every logged request, oldest first.
    pub fn requests(&self) -> Vec<SiteRequest> {
        self.shared.lock().log.iter().cloned().collect()
    }

    /// Logged requests that arrived at or after `mark`, oldest first.
    pub fn requests_since(&self, mark: u64) -> Vec<SiteRequest> {
        self.shared.lock().log.iter().filter(|r| r.seq >= mark).cloned().collect()
    }

    /// Waits until a request at or after `mark` satisfies `matches` and returns it, or fails
    /// after `timeout` listing what did arrive.
    pub fn wait_for(
        &self,
        mark: u64,
        timeout: Duration,
        matches: impl Fn(&SiteRequest) -> bool,
    ) -> anyhow::Result<SiteRequest> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            if let Some(found) = state.log.iter().find(|r| r.seq >= mark && matches(r)) {
                return Ok(found.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                let seen: Vec<String> = state
                    .log
                    .iter()
                    .filter(|r| r.seq >= mark)
                    .map(|r| format!("{} {}{}", r.method, r.host, r.path))
                    .collect();
                anyhow::bail!("no matching request within {timeout:?}; arrived: {seen:?}");
            }
            state = match self.shared.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for Sites {
    fn drop(&mut self) {
        self.shared.shutting_down.store(true, Ordering::SeqCst);
        // `accept` cannot be interrupted portably: a connection of our own wakes it to see the
        // flag.
        let _ = TcpStream::connect_timeout(
            &std::net::SocketAddr::from(([127, 0, 0, 1], self.port)),
            Duration::from_secs(2),
        );
    }
}

fn serve(stream: &TcpStream, shared: &Shared) -> anyhow::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line)? == 0 {
        return Ok(());
    }
    let mut host = String::new();
    let mut length = 0usize;
    let mut cookie = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("host") {
                host = strip_port(value).to_ascii_lowercase();
            } else if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap_or(0);
            } else if name.eq_ignore_ascii_case("cookie") {
                cookie = Some(value.to_owned());
            }
        }
    }
    let mut body = vec![0; length.min(MAX_BODY)];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();

    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let target = parts.next().unwrap_or("/");
    let target = target.split('#').next().unwrap_or("/");
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_owned(), Some(query.to_owned())),
        None => (target.to_owned(), None),
    };
    let mut form = query.as_deref().map(form_fields).unwrap_or_default();
    if method == "POST" {
        form.extend(form_fields(&body));
    }

    let answer = {
        let mut state = shared.lock();
        let seq = state.next_seq;
        state.next_seq += 1;
        let answer = state.pages.get(&(host.clone(), path.clone())).cloned();
        state.log.push_back(SiteRequest {
            seq,
            method: method.clone(),
            host,
            path,
            query,
            body,
            form,
            cookie,
        });
        while state.log.len() > MAX_LOGGED {
            state.log.pop_front();
        }
        shared.changed.notify_all();
        answer
    };
    let mut stream = stream;
    let head_only = method == "HEAD";
    match (answer, method.as_str()) {
        (Some(Answer::Html(html)), _) => respond(&mut stream, "200 OK", &[], &html, head_only),
        (Some(Answer::Redirect(location)), _) => {
            respond(&mut stream, "302 Found", &[("Location", &location)], "", head_only)
        }
        (None, "POST") => {
            let html = "<!doctype html><title>Received</title><p id=\"received\">Received.</p>";
            respond(&mut stream, "200 OK", &[], html, false)
        }
        (None, _) => respond(&mut stream, "404 Not Found", &[], "no page here", head_only),
    }
}

fn respond(
    stream: &mut &TcpStream,
    status: &str,
    headers: &[(&str, &str)],
    body: &str,
    head_only: bool,
) -> anyhow::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body.as_bytes())?;
    }
    stream.flush()?;
    Ok(())
}

/// `shop.test:8080` → `shop.test`; `[::1]:80` → `[::1]`.
fn strip_port(host: &str) -> &str {
    match host.rfind(':') {
        Some(at) if !host[at..].contains(']') => &host[..at],
        _ => host,
    }
}

/// The fields of an `application/x-www-form-urlencoded` text.
fn form_fields(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) => (decode(key), decode(value)),
            None => (decode(pair), String::new()),
        })
        .collect()
}

/// Decodes `+` and `%XX` escapes; a malformed escape stays as written.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| char::from(b).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(high * 16 + low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::decode;
    use super::form_fields;
    use super::strip_port;

    #[test]
    fn form_bodies_decode_as_browsers_encode_them() {
        assert_eq!(
            form_fields("token=sk-abc%2B1&note=hello+world&empty="),
            vec![
                ("token".to_owned(), "sk-abc+1".to_owned()),
                ("note".to_owned(), "hello world".to_owned()),
                ("empty".to_owned(), String::new()),
            ]
        );
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%41"), "%zzA");
        assert_eq!(decode("%E2%9C%93"), "✓");
    }

    #[test]
    fn the_host_header_loses_its_port() {
        assert_eq!(strip_port("shop.test:41234"), "shop.test");
        assert_eq!(strip_port("shop.test"), "shop.test");
        assert_eq!(strip_port("[::1]:80"), "[::1]");
        assert_eq!(strip_port("[::1]"), "[::1]");
    }
}
