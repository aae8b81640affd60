//! Artifacts and downloads through the real engine and driver: `artifact_create` saves a
//! document with the thread (a bad name is refused before anyone is asked), a `download` of a
//! URL is judged by where it goes (a sensitive site is never downloaded from), a `download` of
//! an artifact is judged without an origin on purpose and reaches the host with the newest
//! version's content, and `sidebar_open` opens an artifact of the thread in its view.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::artifact::handed;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::OpenKind;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::store::NodeBody;

fn outcomes(world: &World, thread: &ThreadId) -> Vec<CallOutcome> {
    world
        .path(thread)
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::ToolResult { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .collect()
}

fn create(filename: &str, content: &str) -> Reply {
    Reply::tool("artifact_create", json!({ "filename": filename, "content": content }))
}

/// A thread that saved `report.md` twice (the second version is the one by that name).
fn with_report(world: &mut World) -> ThreadId {
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("load_tools", json!({"group": "files"})));
    world.script.push_back(create("report.md", "# Draft"));
    world.script.push_back(create("report.md", "# Final"));
    world.script.push_back(Reply::text("saved"));
    submit(world, &thread, "write the report");
    world.settle();
    thread
}

#[test]
fn an_artifact_is_saved_with_the_thread_and_a_name_saved_again_is_a_new_version() {
    let mut world = World::new();
    let thread = with_report(&mut world);
    let said = results(&world.path(&thread));
    assert!(
        said[1].starts_with("Saved the artifact \"report.md\" (Markdown, 7 bytes)."),
        "{said:?}"
    );
    assert!(said[2].starts_with("Saved version 2 of the artifact \"report.md\""), "{said:?}");
    assert!(world.executions.is_empty(), "the engine saves it, no host runs anything");
}

#[test]
fn a_name_with_folders_is_refused_before_the_user_is_asked() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(create("../../.bashrc", "rm -rf ~"));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "save it");
    world.settle();
    assert!(approvals(&world).is_empty());
    let said = results(&world.path(&thread));
    assert!(said[0].contains("names a folder"), "{said:?}");
    assert_eq!(outcomes(&world, &thread), [CallOutcome::Failed]);
}

#[test]
fn a_download_from_a_sensitive_site_is_denied_and_another_asks_by_its_destination() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world
        .script
        .push_back(Reply::tool("download", json!({"url": "https://www.paypal.com/statement.pdf"})));
    world.script.push_back(Reply::tool(
        "download",
        json!({"url": "https://files.example/r.pdf", "filename": "r.pdf"}),
    ));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "download my statement, then the report");
    world.settle();
    assert!(world.executions.is_empty());
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "the sensitive one is denied without a question");
    assert_eq!(asked[0].1.target_origin.as_deref(), Some("https://files.example"));
    respond(&mut world, &asked[0].0, json!({"type": "accept"}));
    world.settle();
    assert_eq!(outcomes(&world, &thread), [CallOutcome::Denied, CallOutcome::Done]);
    assert_eq!(world.executions.len(), 1);
    let handed_over = &world.executions[0].call.params;
    assert_eq!(handed_over.get(handed::CONTENT), None);
}

#[test]
fn an_artifact_download_is_judged_without_an_origin_and_carries_the_newest_content() {
    let mut world = World::new();
    let thread = with_report(&mut world);
    ask_first(&world);
    world.script.push_back(Reply::tool("download", json!({"artifact": "report.md"})));
    world.script.push_back(Reply::tool("download", json!({"artifact": "nothing.md"})));
    world.script.push_back(Reply::text("downloaded"));
    submit(&mut world, &thread, "download it");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "untrusted asks before a write, even one with no site");
    assert_eq!(asked[0].1.target_origin, None);
    assert!(asked[0].1.flags.is_empty(), "{:?}", asked[0].1.flags);
    respond(&mut world, &asked[0].0, json!({"type": "accept"}));
    world.settle();
    // The second download is judged (and asked about) like the first, then finds no artifact.
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2);
    respond(&mut world, &asked[1].0, json!({"type": "accept"}));
    world.settle();
    assert_eq!(world.executions.len(), 1);
    let params = &world.executions[0].call.params;
    assert_eq!(params[handed::CONTENT], json!("# Final"));
    assert_eq!(params[handed::MIME], json!("text/markdown;charset=utf-8"));
    let said = results(&world.path(&thread));
    let last = said.last().cloned().unwrap_or_default();
    assert_eq!(last, "Error: this chat has no artifact named \"nothing.md\"; it has: report.md");
}

#[test]
fn under_auto_an_artifact_download_runs_without_a_question() {
    let mut world = World::new();
    let thread = with_report(&mut world);
    world.script.push_back(Reply::tool("download", json!({"artifact": "report.md"})));
    world.script.push_back(Reply::text("downloaded"));
    submit(&mut world, &thread, "download it");
    world.settle();
    assert!(approvals(&world).is_empty());
    assert_eq!(world.executions.len(), 1);
}

fn opens(world: &World) -> Vec<(OpenKind, String, String)> {
    world.events(|event| match event {
        AgentEvent::ViewOpen(open) => Some((open.kind, open.target.clone(), open.title.clone())),
        _ => None,
    })
}

fn last_result(world: &World, thread: &ThreadId) -> Value {
    let text = results(&world.path(thread)).pop().unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[test]
fn sidebar_open_shows_an_artifact_of_the_thread_in_its_view() {
    let mut world = World::new();
    let id = world.submission();
    world.send(json!({"type": "settings.update", "submissionId": id,
        "patch": {"agentOpenTools": true}}));
    let thread = with_report(&mut world);
    world.script.push_back(Reply::tool("sidebar_open", json!({"target": "Artifact:report.md"})));
    world.script.push_back(Reply::text("opened"));
    submit(&mut world, &thread, "show me the report");
    world.settle();
    assert_eq!(
        opens(&world),
        [(OpenKind::Artifact, "report.md".to_owned(), "report.md".to_owned())]
    );
    assert_eq!(
        last_result(&world, &thread),
        json!({"kind": "artifact", "target": "report.md", "title": "report.md", "delivered": true})
    );
    world.script.push_back(Reply::tool("sidebar_open", json!({"target": "artifact:other.md"})));
    world.script.push_back(Reply::text("no"));
    submit(&mut world, &thread, "and the other one");
    world.settle();
    let said = results(&world.path(&thread));
    assert!(
        said.iter()
            .any(|s| s == "Error: this chat has no artifact named \"other.md\"; it has: report.md"),
        "{said:?}"
    );
    assert_eq!(opens(&world).len(), 1);
}
