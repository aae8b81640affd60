//! A static fixture site on loopback: files from a directory plus pages added in memory, for the
//! page-executor tests in real Chromium.
//!
//! [`FixtureSite::start`] listens on `127.0.0.1` at a random port and serves `GET` requests on a
//! thread per connection (`Connection: close`). A path is looked up first among the pages added
//! with [`FixtureSite::add_page`], then as a file under the root directory (never outside it).
//! Anything else is `404`. The same server answers as `localhost` too, which is another origin
//! than `127.0.0.1`: [`FixtureSite::cross_origin_url`] gives the address of a page as a
//! cross-origin frame sees it.
//!
//! ```no_run
//! use panelot_testkit::fixture_site::FixtureSite;
//!
//! let site = FixtureSite::start("crates/e2e/fixtures")?;
//! site.add_page("/big.html", "<!doctype html><title>Big</title><button>Go</button>");
//! let url = site.url("/big.html"); // http://127.0.0.1:PORT/big.html
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::io::BufRead;
use std::io::BufReader;
use std::io::Write;
use std::net::TcpListener;
use std::net::TcpStream;
use std::path::Component;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::PoisonError;

use anyhow::Context;

/// Pages added in memory, by path.
type Pages = Arc<Mutex<BTreeMap<String, String>>>;

/// A running fixture site. It stops serving when the test process ends.
#[derive(Debug, Clone)]
pub struct FixtureSite {
    port: u16,
    pages: Pages,
}

impl FixtureSite {
    /// Serves the files under `root` (and added pages) on `127.0.0.1:<random port>`.
    pub fn start(root: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let root: PathBuf = root.into();
        let listener = TcpListener::bind(("127.0.0.1", 0)).context("binding the fixture site")?;
        let port = listener.local_addr()?.port();
        let pages: Pages = Arc::default();
        let served = Arc::clone(&pages);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let root = root.clone();
                let pages = Arc::clone(&served);
                std::thread::spawn(move || {
                    // A client that hangs up early is not the test's concern.
                    let _ = serve(stream, &root, &pages);
                });
            }
        });
        Ok(FixtureSite { port, pages })
    }

    /// Adds (or replaces) a page at `path` (starting with `/`).
    pub fn add_page(&self, path: &str, html: impl Into<String>) {
        self.pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_owned(), html.into());
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// `http://localhost:<port><path>`: the same server, another origin.
    pub fn cross_origin_url(&self, path: &str) -> String {
        format!("http://localhost:{}{path}", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

fn serve(stream: TcpStream, root: &Path, pages: &Pages) -> anyhow::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; the body of a GET is empty.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let found = if method == "GET" || method == "HEAD" { lookup(path, root, pages) } else { None };
    let mut stream = stream;
    match found {
        Some((body, content_type)) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            if method == "GET" {
                stream.write_all(&body)?;
            }
        }
        None => {
            let body = format!("no fixture at {path}");
            let head = format!(
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(body.as_bytes())?;
        }
    }
    stream.flush()?;
    Ok(())
}

fn lookup(path: &str, root: &Path, pages: &Pages) -> Option<(Vec<u8>, &'static str)> {
    if let Some(html) = pages.lock().unwrap_or_else(PoisonError::into_inner).get(path) {
        return Some((html.clone().into_bytes(), "text/html; charset=utf-8"));
    }
    let relative = Path::new(path.trim_start_matches('/'));
    // Only plain names: no `..`, no absolute parts.
    if !relative.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = root.join(relative);
    let body = std::fs::read(&file).ok()?;
    Some((body, content_type(&file)))
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}
