//! Tests of the thread list: grouping by local day and updates from broadcasts.

use panelot_protocol::decode_event;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;

const HOUR_MS: u64 = 60 * 60 * 1000;
/// 2026-01-10 12:00 UTC.
const NOW_MS: u64 = 1_768_046_400_000;

fn meta(id: &str, updated_at_ms: u64, pinned: bool) -> Value {
    json!({"id": id, "title": id, "createdAtMs": 1, "updatedAtMs": updated_at_ms, "leafId": null,
        "revision": 1, "stats": {"turns": 0, "totalTokens": 0, "costUsd": 0.0},
        "scopeOrigins": [], "preset": null, "parentThreadId": null, "folderId": null, "tags": [],
        "pinned": pinned, "archived": false, "permissionPolicy": null})
}

fn event(value: Value) -> AgentEvent {
    decode_event(value).unwrap().event
}

fn listed(threads: &[Value]) -> AgentEvent {
    let threads: Vec<Value> = threads
        .iter()
        .map(|m| json!({"meta": m, "running": false, "pendingApprovals": 0, "pendingInteractions": 0}))
        .collect();
    event(json!({"type": "thread.listed", "submissionId": "s", "threads": threads}))
}

fn names(list: &ThreadList, now_ms: u64, utc_offset_min: i32) -> Vec<(Group, Vec<String>)> {
    list.groups(now_ms, utc_offset_min)
        .into_iter()
        .map(|(g, ts)| (g, ts.iter().map(|t| t.meta.id.to_string()).collect()))
        .collect()
}

#[test]
fn threads_are_grouped_by_local_day_with_pinned_first() {
    let mut list = ThreadList::default();
    list.apply(&listed(&[
        meta("old", NOW_MS - 30 * 24 * HOUR_MS, false),
        meta("today-early", NOW_MS - 11 * HOUR_MS, false),
        meta("today-late", NOW_MS - HOUR_MS, false),
        meta("yesterday", NOW_MS - 24 * HOUR_MS, false),
        meta("week", NOW_MS - 5 * 24 * HOUR_MS, false),
        meta("pinned-old", NOW_MS - 90 * 24 * HOUR_MS, true),
    ]));
    assert_eq!(
        names(&list, NOW_MS, 0),
        [
            (Group::Pinned, vec!["pinned-old".to_owned()]),
            (Group::Today, vec!["today-late".to_owned(), "today-early".to_owned()]),
            (Group::Yesterday, vec!["yesterday".to_owned()]),
            (Group::LastWeek, vec!["week".to_owned()]),
            (Group::Older, vec!["old".to_owned()]),
        ]
    );
}

#[test]
fn days_break_at_local_midnight() {
    let meta = |updated| ThreadMeta {
        updated_at_ms: updated,
        ..serde_json::from_value(super::tests::meta("t", 0, false)).unwrap()
    };
    // 11 hours ago is 01:00 UTC today, but 17:00 yesterday at UTC-8.
    assert_eq!(group_of(&meta(NOW_MS - 11 * HOUR_MS), NOW_MS, 0), Group::Today);
    assert_eq!(group_of(&meta(NOW_MS - 11 * HOUR_MS), NOW_MS, -8 * 60), Group::Yesterday);
    // A clock skewed into the future still counts as today.
    assert_eq!(group_of(&meta(NOW_MS + HOUR_MS), NOW_MS, 0), Group::Today);
}

#[test]
fn broadcasts_keep_the_list_in_step() {
    let mut list = ThreadList::default();
    list.apply(&listed(&[meta("a", NOW_MS, false)]));
    list.apply(&event(json!({"type": "thread.created", "submissionId": null,
        "thread": meta("b", NOW_MS, false)})));
    list.apply(&event(json!({"type": "thread.updated", "threadId": "a", "revision": 2,
        "patch": {"title": "Renamed", "pinned": true}})));
    // A stale revision does not undo the newer change.
    list.apply(&event(json!({"type": "thread.updated", "threadId": "a", "revision": 1,
        "patch": {"title": "Old"}})));
    list.apply(&event(json!({"type": "activity.updated", "running": 1, "pendingApprovals": 1,
        "pendingInteractions": 0, "threads": [{"threadId": "b", "running": true,
        "pendingApprovals": 1, "pendingInteractions": 0}]})));
    let a = list.get(&ThreadId::new("a").unwrap()).unwrap();
    assert_eq!((a.meta.title.as_str(), a.meta.pinned, a.running), ("Renamed", true, false));
    let b = list.get(&ThreadId::new("b").unwrap()).unwrap();
    assert_eq!((b.running, b.pending_approvals), (true, 1));

    assert!(list.apply(&event(json!({"type": "thread.deleted", "threadId": "a"}))));
    assert_eq!(list.threads.len(), 1);
    assert_eq!(list.most_recent().map(|t| t.meta.id.as_str()), Some("b"));
}

#[test]
fn a_patch_sets_and_clears_the_threads_preset() {
    let mut meta: ThreadMeta = serde_json::from_value(meta("t1", NOW_MS, false)).unwrap();
    let patch = |preset: Value| -> ThreadMetaPatch {
        serde_json::from_value(json!({"preset": preset})).unwrap()
    };
    apply_patch(&mut meta, 2, &patch(json!("p1")));
    assert_eq!(meta.preset.as_ref().map(|p| p.as_str()), Some("p1"));
    apply_patch(&mut meta, 3, &ThreadMetaPatch::default());
    assert_eq!(meta.preset.as_ref().map(|p| p.as_str()), Some("p1"), "absent: kept");
    apply_patch(&mut meta, 4, &patch(Value::Null));
    assert_eq!(meta.preset, None, "null: taken off its preset");
}
