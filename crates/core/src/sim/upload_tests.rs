//! Attached files through the real engine and driver: `attachment.put` stores a file with its
//! thread (a file over the limit is refused with `attachment_too_large`), a message names it
//! and the engine describes it from the store (what the model reads, what the stored message
//! holds, also after a restart), deleting the thread deletes it, and `upload_file` takes only
//! a file of its own thread's path: it is judged as a write on the page and dispatched with the
//! file's bytes, and another thread's file is refused before anyone is asked.

use panelot_protocol::AttachmentId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CallOutcome;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ErrorCode;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::turn_tests::acked;
use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::rejected;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::world::Reply;
use super::world::World;
use crate::store::NodeBody;
use crate::store::Store;
use crate::store::conformance::block_on;

/// "hello world" in base64 (11 bytes).
const HELLO: &str = "aGVsbG8gd29ybGQ=";

fn put(world: &mut World, thread: &ThreadId, id: &str, name: &str, data: &str) -> Vec<Value> {
    let submission = world.submission();
    let frames = world.send(json!({"type": "attachment.put", "submissionId": submission,
        "threadId": thread, "attachmentId": id, "name": name, "mime": "text/plain",
        "dataBase64": data}));
    frames.into_iter().map(|f| serde_json::to_value(f.event).unwrap()).collect()
}

fn code_of(answers: &[Value]) -> Option<String> {
    answers.iter().find_map(|a| a.get("code").and_then(Value::as_str).map(str::to_owned))
}

fn submit_with(
    world: &mut World,
    thread: &ThreadId,
    text: &str,
    ids: &[&str],
) -> Vec<panelot_protocol::AgentEvent> {
    let id = world.submission();
    let mut input = super::world::input(text);
    input["attachmentIds"] = json!(ids);
    world
        .send(json!({"type": "turn.submit", "submissionId": id, "threadId": thread,
            "input": input}))
        .into_iter()
        .map(|f| f.event)
        .collect()
}

fn stored(world: &World, thread: &ThreadId, id: &str) -> Option<crate::store::AttachmentRecord> {
    let id = AttachmentId::new(id).unwrap();
    block_on(world.store.attachment(thread, &id)).unwrap()
}

/// The file blocks of the thread's user messages, as stored: (name, id, mime, size).
fn file_blocks(world: &World, thread: &ThreadId) -> Vec<(String, String, String, u64)> {
    let mut files = Vec::new();
    for node in world.path(thread) {
        let NodeBody::UserMessage { input, .. } = &node.body else { continue };
        for block in &input.attached_context {
            if let ContextContent::File { attachment_id, mime, size_bytes } = &block.content {
                files.push((
                    block.label.clone(),
                    attachment_id.to_string(),
                    mime.clone(),
                    *size_bytes,
                ));
            }
        }
    }
    files
}

#[test]
fn a_file_is_stored_with_its_thread_described_to_the_model_and_kept_over_a_restart() {
    let mut world = World::new();
    let thread = world.create_thread();
    let answers = put(&mut world, &thread, "att-1", "notes.txt", HELLO);
    assert_eq!(code_of(&answers), None, "{answers:?}");
    let file = stored(&world, &thread, "att-1").expect("stored");
    assert_eq!(
        (file.name.as_str(), file.size_bytes, file.data_base64.as_str()),
        ("notes.txt", 11, HELLO)
    );
    world.script.push_back(Reply::text("got it"));
    assert!(acked(&submit_with(&mut world, &thread, "here is my file", &["att-1"])));
    world.settle();
    let expected = vec![("notes.txt".to_owned(), "att-1".to_owned(), "text/plain".to_owned(), 11)];
    assert_eq!(file_blocks(&world, &thread), expected);
    let said = format!("{:?}", world.requests[0].messages);
    assert!(
        said.contains(
            "[The user attached notes.txt (text/plain, 11 bytes) as attachment att-1; \
             upload_file (tool group files) can put it on a file input]"
        ),
        "{said}"
    );
    world.restart();
    assert!(stored(&world, &thread, "att-1").is_some(), "a restart keeps the file");
    assert_eq!(file_blocks(&world, &thread), expected, "and the message that names it");
}

#[test]
fn a_file_over_the_limit_and_a_message_naming_a_missing_file_are_refused_with_their_codes() {
    let mut world = World::new();
    let thread = world.create_thread();
    // 5,000,001 bytes: 1,666,667 groups of four characters, three bytes each.
    let big = "AAAA".repeat(1_666_667);
    let answers = put(&mut world, &thread, "att-big", "big.bin", &big);
    assert_eq!(code_of(&answers).as_deref(), Some("attachment_too_large"));
    assert!(stored(&world, &thread, "att-big").is_none(), "nothing stored");
    let answers = put(&mut world, &thread, "att-bad", "x.txt", "not base64!");
    assert_eq!(code_of(&answers).as_deref(), Some("invalid_command"));
    let events = submit_with(&mut world, &thread, "see attached", &["att-big"]);
    assert_eq!(rejected(&events), Some(ErrorCode::AttachmentNotFound));
    assert!(world.requests.is_empty(), "the message never reached the model");
}

#[test]
fn deleting_the_thread_deletes_its_files() {
    let mut world = World::new();
    let thread = world.create_thread();
    put(&mut world, &thread, "att-1", "notes.txt", HELLO);
    assert!(stored(&world, &thread, "att-1").is_some());
    let id = world.submission();
    world.send(json!({"type": "thread.delete", "submissionId": id, "threadId": thread}));
    world.settle();
    assert!(stored(&world, &thread, "att-1").is_none());
}

#[test]
fn upload_file_is_asked_as_a_write_on_the_page_and_dispatched_with_the_files_bytes() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    put(&mut world, &thread, "att-1", "notes.txt", HELLO);
    world
        .script
        .push_back(Reply::tool("upload_file", json!({"ref": "e1", "attachment": "notes.txt"})));
    world.script.push_back(Reply::text("uploaded"));
    submit_with(&mut world, &thread, "upload my notes", &["att-1"]);
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1.tool, "upload_file");
    assert_eq!(asked[0].1.target_origin.as_deref(), Some("https://shop.example"));
    assert!(world.executions.is_empty(), "nothing runs before the user answers");
    respond(&mut world, &asked[0].0, json!({"type": "accept"}));
    world.settle();
    assert_eq!(world.executions.len(), 1);
    let params = &world.executions[0].call.params;
    assert_eq!(
        *params,
        json!({"ref": "e1", "attachment": "notes.txt", "name": "notes.txt", "mime": "text/plain",
            "dataBase64": HELLO})
    );
    // The bytes went to the host only: the stored call keeps what the model sent.
    let calls: Vec<Value> = world
        .path(&thread)
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::ToolCall { params, .. } => Some(params.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [json!({"ref": "e1", "attachment": "notes.txt"})]);
}

#[test]
fn another_threads_file_is_refused_before_anyone_is_asked() {
    let mut world = World::new();
    ask_first(&world);
    let other = world.create_thread();
    put(&mut world, &other, "att-other", "secret.txt", HELLO);
    let thread = world.create_thread();
    put(&mut world, &thread, "att-mine", "mine.txt", HELLO);
    // A message cannot name it either.
    let events = submit_with(&mut world, &thread, "use theirs", &["att-other"]);
    assert_eq!(rejected(&events), Some(ErrorCode::AttachmentNotFound));
    world
        .script
        .push_back(Reply::tool("upload_file", json!({"ref": "e1", "attachment": "att-other"})));
    world
        .script
        .push_back(Reply::tool("upload_file", json!({"ref": "e1", "attachment": "secret.txt"})));
    world.script.push_back(Reply::text("could not"));
    submit_with(&mut world, &thread, "upload", &["att-mine"]);
    world.settle();
    assert!(approvals(&world).is_empty(), "refused before judgement: no card");
    assert!(world.executions.is_empty());
    let said = results(&world.path(&thread));
    assert_eq!(said.len(), 2);
    for refusal in &said {
        assert!(refusal.contains("is not a file the user attached in this chat"), "{refusal}");
        assert!(refusal.contains("Attached: mine.txt (att-mine)."), "{refusal}");
    }
    let outcomes: Vec<CallOutcome> = world
        .path(&thread)
        .iter()
        .filter_map(|n| match &n.body {
            NodeBody::ToolResult { outcome, .. } => Some(*outcome),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, [CallOutcome::Failed, CallOutcome::Failed]);
}

/// #19: a file id that another chat's file already has was an internal error (the store's
/// integrity check failed the commit); it is a refusal with its own code, and nothing is stored.
#[test]
fn an_id_another_thread_has_is_refused_with_its_code_and_nothing_is_stored() {
    let mut world = World::new();
    let first = world.create_thread();
    put(&mut world, &first, "att-1", "notes.txt", HELLO);
    let second = world.create_thread();
    let answers = put(&mut world, &second, "att-1", "other.txt", "AAAA");
    assert_eq!(code_of(&answers).as_deref(), Some("attachment_id_taken"), "{answers:?}");
    let message = answers.iter().find_map(|a| a.get("message").and_then(Value::as_str));
    assert_eq!(message, Some("attachment att-1 is already the id of a file of another chat"));
    assert!(stored(&world, &second, "att-1").is_none(), "nothing stored in the second chat");
    let kept = stored(&world, &first, "att-1").expect("the first chat keeps its file");
    assert_eq!((kept.name.as_str(), kept.data_base64.as_str()), ("notes.txt", HELLO));
    // The same id again in its own chat is refused the same way.
    let answers = put(&mut world, &first, "att-1", "notes.txt", HELLO);
    assert_eq!(code_of(&answers).as_deref(), Some("attachment_id_taken"), "{answers:?}");
    // The engine goes on: the second chat stores a file under a new id.
    let answers = put(&mut world, &second, "att-2", "other.txt", "AAAA");
    assert_eq!(code_of(&answers), None, "{answers:?}");
}

/// #19: edit-and-resend and regenerate send the message again as a sibling (`turn.fork`); a
/// fork that names the files of the message it replaces keeps them: the model is told of them
/// again and `upload_file` takes them on the new branch, whose path no longer has the old
/// message.
#[test]
fn a_fork_naming_the_files_of_the_message_it_replaces_keeps_them_for_the_model_and_upload() {
    let mut world = World::new();
    let thread = world.create_thread();
    put(&mut world, &thread, "att-1", "notes.txt", HELLO);
    world.script.push_back(Reply::text("first answer"));
    assert!(acked(&submit_with(&mut world, &thread, "here is my file", &["att-1"])));
    world.settle();
    let original = world
        .path(&thread)
        .iter()
        .find(|n| matches!(n.body, NodeBody::UserMessage { .. }))
        .map(|n| n.id.clone())
        .expect("the message");
    world.script.push_back(Reply::tool("upload_file", json!({"ref": "e1", "attachment": "att-1"})));
    world.script.push_back(Reply::text("uploaded"));
    let id = world.submission();
    let mut input = super::world::input("here is my file, again");
    input["attachmentIds"] = json!(["att-1"]);
    let events: Vec<_> = world
        .send(json!({"type": "turn.fork", "submissionId": id, "threadId": thread,
            "siblingOfNodeId": original, "input": input}))
        .into_iter()
        .map(|f| f.event)
        .collect();
    assert!(acked(&events), "{events:?}");
    world.settle();
    let path = world.path(&thread);
    assert!(path.iter().all(|n| n.id != original), "the new branch replaces the old message");
    let expected = vec![("notes.txt".to_owned(), "att-1".to_owned(), "text/plain".to_owned(), 11)];
    assert_eq!(file_blocks(&world, &thread), expected);
    let said = format!("{:?}", world.requests[1].messages);
    assert!(said.contains("[The user attached notes.txt (text/plain, 11 bytes)"), "{said}");
    assert_eq!(world.executions.len(), 1, "{:?}", results(&path));
    assert_eq!(world.executions[0].call.params["dataBase64"], json!(HELLO));
}
