//! A tiny std-only HTTP/1.1 client for talking to the testkit servers over real loopback
//! sockets: whole responses read to EOF, or streamed line by line through a channel.

use std::io::BufRead;
use std::io::BufReader;
use std::io::Read;
use std::io::Write;
use std::net::SocketAddr;
use std::net::TcpStream;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// How long any single wait in these tests may take before the test fails. Generous: the
/// machine is shared and slow, and a passing test never waits this long.
pub(crate) const DEADLINE: Duration = Duration::from_secs(30);

/// A whole response.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    /// Names lowercased.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("body is UTF-8")
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("body is JSON")
    }

    /// The SSE events of the body: `(event name, data)` per blank-line-separated block.
    pub(crate) fn events(&self) -> Vec<(Option<String>, String)> {
        let text = self.text();
        text.split("\n\n")
            .filter(|block| !block.is_empty())
            .map(|block| {
                let mut name = None;
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event: ") {
                        name = Some(value.to_owned());
                    } else if let Some(value) = line.strip_prefix("data: ") {
                        data.push(value);
                    } else {
                        panic!("unexpected SSE line {line:?}");
                    }
                }
                (name, data.join("\n"))
            })
            .collect()
    }

    /// The `data:` payloads of the body, `[DONE]` included, JSON ones parsed.
    pub(crate) fn data(&self) -> Vec<Data> {
        self.events()
            .into_iter()
            .map(|(_, data)| match serde_json::from_str(&data) {
                Ok(json) => Data::Json(json),
                Err(_) => Data::Text(data),
            })
            .collect()
    }
}

/// One `data:` payload.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Data {
    Json(Value),
    Text(String),
}

/// Sends one request and reads the whole response until the server closes the connection.
pub(crate) fn send(addr: SocketAddr, raw_request: &[u8]) -> Response {
    let mut stream = connect(addr);
    stream.write_all(raw_request).expect("write request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read response to EOF");
    parse_response(&raw)
}

/// Sends one request and returns the raw bytes of the response, unparsed.
pub(crate) fn send_raw(addr: SocketAddr, raw_request: &[u8]) -> Vec<u8> {
    let mut stream = connect(addr);
    stream.write_all(raw_request).expect("write request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read response to EOF");
    raw
}

/// `POST path` with a JSON body and `Content-Length`.
pub(crate) fn post_json(addr: SocketAddr, path: &str, body: &Value) -> Response {
    send(addr, &post_request(addr, path, body))
}

/// `GET path`.
pub(crate) fn get(addr: SocketAddr, path: &str) -> Response {
    send(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
}

/// The bytes of a `POST path` with a JSON body and `Content-Length`.
pub(crate) fn post_request(addr: SocketAddr, path: &str, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A response read line by line on a thread of its own: the test sees each line when it
/// arrives, and the channel disconnects at EOF.
#[derive(Debug)]
pub(crate) struct LineStream {
    pub(crate) lines: mpsc::Receiver<String>,
    /// Kept so the test can close the connection.
    pub(crate) stream: TcpStream,
}

impl LineStream {
    /// The next non-empty line, failing the test after [`DEADLINE`].
    pub(crate) fn next_line(&self) -> Option<String> {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("no line within {DEADLINE:?}"),
        }
    }

    /// Lines up to and including the first one containing `needle`.
    pub(crate) fn lines_until(&self, needle: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_line().unwrap_or_else(|| panic!("EOF before {needle:?}"));
            let found = line.contains(needle);
            lines.push(line);
            if found {
                return lines;
            }
        }
    }

    /// Every remaining line until EOF.
    pub(crate) fn rest(&self) -> Vec<String> {
        std::iter::from_fn(|| self.next_line()).collect()
    }
}

/// Sends a request and streams the response's non-empty lines (status line and headers too).
pub(crate) fn stream_lines(addr: SocketAddr, raw_request: &[u8]) -> LineStream {
    let mut stream = connect(addr);
    stream.write_all(raw_request).expect("write request");
    let reader = stream.try_clone().expect("clone stream");
    let (sender, lines) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(reader);
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end().to_owned();
            if !line.is_empty() && sender.send(line).is_err() {
                return;
            }
        }
    });
    LineStream { lines, stream }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect to the mock server");
    stream.set_read_timeout(Some(DEADLINE)).expect("set read timeout");
    stream
}

fn parse_response(raw: &[u8]) -> Response {
    let split = raw.windows(4).position(|window| window == b"\r\n\r\n").expect("end of head");
    let head = std::str::from_utf8(&raw[..split]).expect("head is UTF-8");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status = status_line.split(' ').nth(1).expect("status code").parse().expect("number");
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').expect("header line");
            (name.trim().to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    Response { status, headers, body: raw[split + 4..].to_vec() }
}
