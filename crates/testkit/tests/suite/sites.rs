//! The multi-origin sites server over real loopback HTTP: pages per `Host`, redirects, form
//! posts decoded in the log, `mark` and `wait_for`.

use std::net::SocketAddr;

use panelot_testkit::sites::Sites;
use pretty_assertions::assert_eq;

use super::http_client::DEADLINE;
use super::http_client::send;

fn addr(sites: &Sites) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], sites.port()))
}

#[test]
fn each_host_has_its_own_pages_and_every_request_is_logged() {
    let sites = Sites::start().expect("start");
    sites.add_page("shop.test", "/", "<title>Shop</title>");
    sites.add_page("evil.test", "/", "<title>Evil</title>");
    sites.add_redirect("shop.test", "/go", "http://evil.test/");
    let port = sites.port();

    let get = |host: &str, path: &str| {
        send(addr(&sites), format!("GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n").as_bytes())
    };
    assert_eq!(get("shop.test", "/").text(), "<title>Shop</title>");
    assert_eq!(get("EVIL.test", "/").text(), "<title>Evil</title>");
    assert_eq!(get("bank.test", "/").status, 404);
    let moved = get("shop.test", "/go?x=1");
    assert_eq!((moved.status, moved.header("location")), (302, Some("http://evil.test/")));

    let mark = sites.mark();
    let body = "token=sk-live%2B1&note=hi+there";
    let post = format!(
        "POST /submit?from=form HTTP/1.1\r\nHost: evil.test:{port}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answered = send(addr(&sites), post.as_bytes());
    assert_eq!(answered.status, 200, "a post with no page still lands");

    let logged: Vec<(String, String, String)> = sites
        .requests()
        .iter()
        .map(|r| (r.method.clone(), r.host.clone(), r.path.clone()))
        .collect();
    let expected = [
        ("GET", "shop.test", "/"),
        ("GET", "evil.test", "/"),
        ("GET", "bank.test", "/"),
        ("GET", "shop.test", "/go"),
        ("POST", "evil.test", "/submit"),
    ];
    let expected: Vec<(String, String, String)> =
        expected.iter().map(|(m, h, p)| (m.to_string(), h.to_string(), p.to_string())).collect();
    assert_eq!(logged, expected);

    let since = sites.requests_since(mark);
    assert_eq!(since.len(), 1);
    let post = &since[0];
    assert_eq!(post.query.as_deref(), Some("from=form"));
    assert_eq!(post.field("token"), Some("sk-live+1"));
    assert_eq!(post.field("note"), Some("hi there"));
    assert_eq!(post.field("from"), Some("form"), "query fields are read too");
    assert!(post.carries("sk-live+1") && !post.carries("sk-other"));

    let found = sites.wait_for(mark, DEADLINE, |r| r.method == "POST").expect("the post");
    assert_eq!(found.seq, post.seq);
    let none = sites.wait_for(sites.mark(), std::time::Duration::from_millis(50), |_| true);
    assert!(none.is_err());
}
