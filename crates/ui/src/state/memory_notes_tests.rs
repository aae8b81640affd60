//! Tests of the memory section's state and markup.

use panelot_protocol::engine::MemoryNoteView;
use pretty_assertions::assert_eq;

use super::*;

fn note(key: &str, value: &str) -> MemoryNoteView {
    // 2025-03-04 05:06 UTC.
    MemoryNoteView { key: key.into(), value: value.into(), updated_at_ms: 1_741_064_760_000 }
}

fn sid(id: &str) -> SubmissionId {
    SubmissionId::new(id).unwrap()
}

#[test]
fn a_new_note_is_checked_before_it_is_sent() {
    let notes = vec![note("home", "12 Main Street")];
    let mut editor = MemoryEditor::default();
    assert_eq!(editor.submit(Lang::En, &notes), None, "no form is open");
    editor.add();
    editor.draft = NoteDraft { key: "  ".into(), value: String::new() };
    assert_eq!(editor.submit(Lang::En, &notes), None);
    assert_eq!(
        editor.notes(Lang::En),
        vec!["A name has 1 to 100 characters.", "A note has 1 to 4000 characters."]
    );
    editor.draft = NoteDraft { key: "home".into(), value: "x".into() };
    assert_eq!(editor.submit(Lang::ZhCn, &notes), None, "would replace a note");
    assert_eq!(editor.notes(Lang::ZhCn), vec!["已有名为“home”的笔记，请直接编辑它。".to_owned()]);
    editor.draft = NoteDraft { key: "  work ".into(), value: "v".repeat(4_001) };
    assert_eq!(editor.submit(Lang::En, &notes), None);
    editor.draft.value = " Harbour Road ".into();
    assert_eq!(
        editor.submit(Lang::En, &notes),
        Some(("work".to_owned(), " Harbour Road ".to_owned()))
    );
}

#[test]
fn editing_keeps_the_key_and_an_answer_closes_or_explains() {
    let notes = vec![note("home", "12 Main Street")];
    let mut editor = MemoryEditor::default();
    assert!(!editor.edit(&notes, "gone"));
    assert!(editor.edit(&notes, "home"));
    assert_eq!(editor.draft.value, "12 Main Street");
    editor.draft.key = "typed over".into();
    editor.draft.value = "14 Main Street".into();
    let sent = editor.submit(Lang::En, &notes);
    assert_eq!(sent, Some(("home".to_owned(), "14 Main Street".to_owned())));
    editor.status = NoteStatus::Waiting(sid("s1"));
    assert_eq!(editor.submit(Lang::En, &notes), None, "one save at a time");
    assert!(!editor.answer(&sid("s0"), None), "another form's answer");
    assert!(editor.answer(
        &sid("s1"),
        Some("the memory is full (100 notes): delete one before adding another")
    ));
    assert_eq!(editor.target, NoteTarget::Stored("home".into()), "kept open");
    assert_eq!(
        editor.notes(Lang::ZhCn),
        vec!["记忆已满（100 条笔记）：请先删除一条再添加".to_owned()]
    );
    editor.status = NoteStatus::Waiting(sid("s2"));
    assert!(editor.answer(&sid("s2"), None));
    assert_eq!(editor, MemoryEditor::default(), "saved: closed");
}

#[test]
fn local_time_is_a_calendar_date() {
    assert_eq!(local_time(0, 0), "1970-01-01 00:00");
    assert_eq!(local_time(1_741_064_760_000, 0), "2025-03-04 05:06");
    assert_eq!(local_time(1_741_064_760_000, 480), "2025-03-04 13:06");
    assert_eq!(local_time(1_741_064_760_000, -360), "2025-03-03 23:06");
    // A leap day.
    assert_eq!(local_time(951_782_400_000, 0), "2000-02-29 00:00");
}

#[test]
fn the_list_shows_each_note_escaped_and_asks_before_deleting() {
    let mut editor = MemoryEditor::default();
    assert_eq!(
        memory_list_html(Lang::En, &[], &editor, 0),
        "<li class=\"memory-empty\">No notes yet. Add one here, or ask a chat to remember \
         something.</li>"
    );
    let notes = vec![note("<b>home</b>", "line one\n<script>")];
    let html = memory_list_html(Lang::En, &notes, &editor, 0);
    assert!(
        html.contains("<strong class=\"memory-key\">&lt;b&gt;home&lt;/b&gt;</strong>"),
        "{html}"
    );
    assert!(html.contains("<p class=\"memory-value\">line one\n&lt;script&gt;</p>"), "{html}");
    assert!(html.contains("Saved 2025-03-04 05:06"), "{html}");
    assert!(!html.contains("confirm-delete"), "{html}");
    editor.confirming = Some("<b>home</b>".into());
    let html = memory_list_html(Lang::ZhCn, &notes, &editor, 0);
    assert!(html.contains("删除笔记“&lt;b&gt;home&lt;/b&gt;”？"), "{html}");
    assert!(html.contains("data-act=\"delete\" data-key=\"&lt;b&gt;home&lt;/b&gt;\""), "{html}");
    assert!(html.contains("保存于 2025-03-04 05:06"), "{html}");
}

#[test]
fn the_note_edited_holds_the_form_and_a_new_one_opens_below() {
    let notes = vec![note("home", "12 Main Street"), note("work", "Harbour Road")];
    let mut editor = MemoryEditor::default();
    assert!(memory_add_html(Lang::En, &editor).contains("data-act=\"add\""));
    editor.edit(&notes, "home");
    let html = memory_list_html(Lang::En, &notes, &editor, 0);
    assert!(html.contains("<li class=\"memory-note editing\" data-key=\"home\">"), "{html}");
    assert!(html.contains(">12 Main Street</textarea>"), "{html}");
    assert!(!html.contains("name=\"memory-key\""), "a stored note's key is not retyped");
    assert!(html.contains("data-act=\"edit\" data-key=\"work\""), "the other note as it was");
    editor.add();
    let form = memory_add_html(Lang::En, &editor);
    assert!(form.contains("name=\"memory-key\"") && form.contains("data-act=\"save\""), "{form}");
    assert!(!memory_list_html(Lang::En, &notes, &editor, 0).contains("<textarea"));
}
