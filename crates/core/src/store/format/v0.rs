//! Version 0 → 1.
//!
//! Version 0 is the JSON the records' serde derives wrote before records had a version: the
//! same field names, tags and enum texts as version 1, without `"v"`. Fields added to the
//! records over time were read with a default when missing, so records written by older builds
//! lack them; version 1 requires every field that is not optional, so this step writes those
//! defaults in: a run's `taint` and `route`, a tool call's `approved` and
//! `hostPermissionAsked`, and a message's `attachmentIds`, `attachedContext` and its browser
//! context's `referencedTabs`. Optional fields added the same way (a run's `preset` and
//! `interaction`, a tool call's `target`, a tool result's `engineNote` and `source`) need
//! nothing: absent, they read as null in version 1 too.

use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::error::FormatError;
use super::error::Kind;

/// Moves a record of version 0 to version 1.
pub(super) fn to_v1(kind: Kind, record: &mut Map<String, Value>) -> Result<(), FormatError> {
    match kind {
        Kind::Run => {
            fill(record, "taint", json!({"entries": [], "userValues": []}));
            fill(
                record,
                "route",
                json!({"tab": null, "opened": [], "blocked": [], "documents": []}),
            );
            user_input(record.get_mut("input"));
            for steer in objects(record.get_mut("steers")) {
                user_input(steer.get_mut("input"));
            }
            for tool in objects(record.get_mut("tools")) {
                fill(tool, "approved", json!(false));
                fill(tool, "hostPermissionAsked", json!(false));
            }
        }
        Kind::Node => {
            if let Some(Value::Object(body)) = record.get_mut("body")
                && body.get("type").and_then(Value::as_str) == Some("user_message")
            {
                user_input(body.get_mut("input"));
            }
        }
        // Attachments were first written in version 1: one without `"v"` has nothing to fill.
        Kind::Thread | Kind::Receipt | Kind::Attachment => {}
    }
    record.insert("v".into(), json!(1));
    Ok(())
}

/// A message's defaults. Anything that is not shaped like a message is left for version 1 to
/// refuse.
fn user_input(input: Option<&mut Value>) {
    let Some(Value::Object(input)) = input else {
        return;
    };
    fill(input, "attachmentIds", json!([]));
    fill(input, "attachedContext", json!([]));
    if let Some(Value::Object(context)) = input.get_mut("browserContext") {
        fill(context, "referencedTabs", json!([]));
    }
}

fn fill(object: &mut Map<String, Value>, field: &str, default: Value) {
    object.entry(field).or_insert(default);
}

/// The objects of an array field (none when it is missing or not an array).
fn objects(list: Option<&mut Value>) -> impl Iterator<Item = &mut Map<String, Value>> {
    let items = match list {
        Some(Value::Array(items)) => items.as_mut_slice(),
        _ => &mut [],
    };
    items.iter_mut().filter_map(Value::as_object_mut)
}
