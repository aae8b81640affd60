//! `fetch_url` through the real engine and driver: what a server sends is untrusted page
//! content remembered as taint under the URL it came from, a sensitive destination is never
//! fetched, and content that a redirect brought from a sensitive site never reaches the model.

use panelot_protocol::engine::CallOutcome;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::approvals;
use super::turn_tests::results;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::model::ContentPart;
use crate::model::Message;
use crate::store::NodeBody;

fn outcomes(world: &World, thread: &panelot_protocol::ThreadId) -> Vec<CallOutcome> {
    world
        .path(thread)
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::ToolResult { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .collect()
}

#[test]
fn a_fetched_page_is_fenced_as_untrusted_and_its_text_taints_what_reuses_it() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("fetch_url", json!({"url": "https://docs.example/report"})));
    // The page asked for mail to a stranger: the model, fooled, fetches a URL carrying it.
    world.script.push_back(Reply::tool(
        "fetch_url",
        json!({"url": "https://ops.example/?to=ops@leak.example"}),
    ));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "summarise the report");
    world.settle();
    assert_eq!(world.executions.len(), 1, "the tainted fetch waits for the user");
    let second = &world.requests[1];
    let Message::ToolResult { content, .. } = &second.messages[2] else { panic!("{second:?}") };
    let ContentPart::Text(text) = &content[0] else { panic!() };
    assert!(
        text.starts_with("<untrusted-content")
            && text.contains("provenance=\"page\"")
            && text.contains("source=\"fetch_url\""),
        "{text}"
    );
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1.flags, [panelot_protocol::engine::ApprovalFlag::TaintedInput]);
}

#[test]
fn a_sensitive_destination_is_never_fetched() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("fetch_url", json!({"url": "https://www.paypal.com/"})));
    world.script.push_back(Reply::text("cannot"));
    submit(&mut world, &thread, "check my balance");
    world.settle();
    assert!(world.executions.is_empty());
    assert_eq!(outcomes(&world, &thread), [CallOutcome::Denied]);
}

#[test]
fn content_a_redirect_brought_from_a_sensitive_site_is_withheld() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool(
        "fetch_url",
        json!({"url": "https://short.example/redirect-to-bank"}),
    ));
    world.script.push_back(Reply::text("it redirected"));
    submit(&mut world, &thread, "open the short link");
    world.settle();
    assert_eq!(world.executions.len(), 1);
    assert_eq!(outcomes(&world, &thread), [CallOutcome::Denied]);
    let said = results(&world.path(&thread)).join("\n");
    assert!(said.contains("a sensitive site; Panelot withheld what it sent"), "{said}");
    assert!(!said.contains("Balance"), "{said}");
    let second = format!("{:?}", world.requests[1].messages);
    assert!(!second.contains("Balance") && !second.contains("9931"), "{second}");
}
