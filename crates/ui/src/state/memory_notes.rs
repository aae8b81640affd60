//! The options page's memory section: the agent's notes as the engine lists them, the one note
//! edited in place (or the new one being written), the note whose delete waits for a yes, and
//! the markup of all that as HTML text (see [`connection_markup`](super::connection_markup) for
//! why text). The key of a stored note is fixed: editing changes its text; another key is a new
//! note.

use panelot_protocol::SubmissionId;
use panelot_protocol::engine::MEMORY_KEY_MAX_CHARS;
use panelot_protocol::engine::MEMORY_VALUE_MAX_CHARS;
use panelot_protocol::engine::MemoryNoteView;
use panelot_protocol::engine::memory_key_problem;
use panelot_protocol::engine::memory_value_problem;

use super::connection_markup::icon_html;
use super::connection_markup::problems_html;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;

/// What the form holds, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteDraft {
    /// The key (only typed for a new note).
    pub key: String,
    /// The text.
    pub value: String,
}

/// Which note the form is open on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NoteTarget {
    /// No form is open.
    #[default]
    Closed,
    /// A new note.
    New,
    /// The stored note with this key, edited in place.
    Stored(String),
}

/// Where a save stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NoteStatus {
    /// Nothing sent.
    #[default]
    Idle,
    /// What was typed cannot be sent: why, in words.
    Invalid(Vec<String>),
    /// Sent; waiting for the engine's answer.
    Waiting(SubmissionId),
    /// The engine refused it: its reason.
    Refused(String),
}

/// The memory section's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryEditor {
    /// The note the form is open on.
    pub target: NoteTarget,
    /// What the form holds.
    pub draft: NoteDraft,
    /// The note whose delete waits for a confirmation.
    pub confirming: Option<String>,
    /// Where the last save stands.
    pub status: NoteStatus,
}

impl MemoryEditor {
    /// Opens the form on a new, empty note.
    pub fn add(&mut self) {
        *self = MemoryEditor { target: NoteTarget::New, ..MemoryEditor::default() };
    }

    /// Opens the form on the stored note `key`, with its text; `false` when there is none.
    pub fn edit(&mut self, notes: &[MemoryNoteView], key: &str) -> bool {
        let Some(note) = notes.iter().find(|n| n.key == key) else { return false };
        *self = MemoryEditor {
            target: NoteTarget::Stored(note.key.clone()),
            draft: NoteDraft { key: note.key.clone(), value: note.value.clone() },
            ..MemoryEditor::default()
        };
        true
    }

    /// Closes the form and any confirmation.
    pub fn close(&mut self) {
        *self = MemoryEditor::default();
    }

    /// Whether a save is on its way.
    pub fn waiting(&self) -> bool {
        matches!(self.status, NoteStatus::Waiting(_))
    }

    /// The key and text to send, checked as the engine will; `None` with the problems recorded
    /// (a new note under a key already used would replace that note, so it is refused too).
    pub fn submit(&mut self, lang: Lang, notes: &[MemoryNoteView]) -> Option<(String, String)> {
        if self.waiting() {
            return None;
        }
        let key = match &self.target {
            NoteTarget::Closed => return None,
            NoteTarget::New => self.draft.key.trim().to_owned(),
            NoteTarget::Stored(key) => key.clone(),
        };
        let mut problems = Vec::new();
        if memory_key_problem(&key).is_some() {
            let n = MEMORY_KEY_MAX_CHARS.to_string();
            problems.push(i18n::format(lang, Msg::MemoryKeyLength, &[("n", &n)]));
        } else if self.target == NoteTarget::New && notes.iter().any(|n| n.key == key) {
            problems.push(i18n::format(lang, Msg::MemoryKeyTaken, &[("key", &key)]));
        }
        if memory_value_problem(&self.draft.value).is_some() {
            let n = MEMORY_VALUE_MAX_CHARS.to_string();
            problems.push(i18n::format(lang, Msg::MemoryValueLength, &[("n", &n)]));
        }
        if problems.is_empty() {
            Some((key, self.draft.value.clone()))
        } else {
            self.status = NoteStatus::Invalid(problems);
            None
        }
    }

    /// Gives the engine's answer to a save (`refusal`: its reason); returns whether it was this
    /// form's. A save that went through closes the form; a refused one keeps what was typed.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        if !matches!(&self.status, NoteStatus::Waiting(sent) if sent == submission_id) {
            return false;
        }
        match refusal {
            None => self.close(),
            Some(reason) => self.status = NoteStatus::Refused(reason.to_owned()),
        }
        true
    }

    /// What to show under the form, in `lang`.
    pub fn notes(&self, lang: Lang) -> Vec<String> {
        match &self.status {
            NoteStatus::Invalid(problems) => problems.clone(),
            NoteStatus::Refused(reason) => vec![i18n::engine_text(lang, reason)],
            NoteStatus::Idle | NoteStatus::Waiting(_) => Vec::new(),
        }
    }
}

/// `ms` since the Unix epoch as a local date and time, `YYYY-MM-DD HH:MM`, `utc_offset_min`
/// east of UTC.
pub fn local_time(ms: u64, utc_offset_min: i32) -> String {
    let seconds = i64::try_from(ms / 1000).unwrap_or(i64::MAX / 2) + i64::from(utc_offset_min) * 60;
    let (days, in_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Days to a civil date (the proleptic Gregorian calendar), in eras of 400 years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", in_day / 3_600, in_day % 3_600 / 60)
}

/// The form's fields and buttons: a key box for a new note, the text, save and cancel.
fn form_html(lang: Lang, editor: &MemoryEditor) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let key = match editor.target {
        NoteTarget::New => format!(
            "<label class=\"field\"><span>{}</span><input type=\"text\" name=\"memory-key\" \
             maxlength=\"{MEMORY_KEY_MAX_CHARS}\" value=\"{}\"></label>",
            t(Msg::MemoryKey),
            escape_html(&editor.draft.key)
        ),
        NoteTarget::Closed | NoteTarget::Stored(_) => String::new(),
    };
    let waiting = if editor.waiting() { " disabled" } else { "" };
    format!(
        "{key}<label class=\"field\"><span>{}</span><textarea name=\"memory-value\" rows=\"3\" \
         maxlength=\"{MEMORY_VALUE_MAX_CHARS}\">{}</textarea></label>\
         <ul class=\"problems\" role=\"alert\">{}</ul>\
         <div class=\"actions\"><button type=\"button\" class=\"btn-primary save-note\" \
         data-act=\"save\"{waiting}>{}</button>\
         <button type=\"button\" class=\"cancel-note\" data-act=\"cancel\">{}</button></div>",
        t(Msg::MemoryValue),
        escape_html(&editor.draft.value),
        problems_html(&editor.notes(lang)),
        t(Msg::Save),
        t(Msg::Cancel),
    )
}

/// The notes, each with its key, text and when it was saved, Edit and Delete (asking first);
/// the one being edited holds the form in its place; the empty state when there are none.
pub fn memory_list_html(
    lang: Lang,
    notes: &[MemoryNoteView],
    editor: &MemoryEditor,
    utc_offset_min: i32,
) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    if notes.is_empty() {
        return format!("<li class=\"memory-empty\">{}</li>", t(Msg::MemoryEmpty));
    }
    notes
        .iter()
        .map(|note| {
            let key = escape_html(&note.key);
            if editor.target == NoteTarget::Stored(note.key.clone()) {
                return format!(
                    "<li class=\"memory-note editing\" data-key=\"{key}\">\
                     <strong class=\"memory-key\">{key}</strong>{}</li>",
                    form_html(lang, editor)
                );
            }
            let when = local_time(note.updated_at_ms, utc_offset_min);
            let saved = escape_html(&i18n::format(lang, Msg::MemorySavedAt, &[("when", &when)]));
            let confirm = if editor.confirming.as_deref() == Some(note.key.as_str()) {
                let question = i18n::format(lang, Msg::ConfirmDeleteNote, &[("key", &note.key)]);
                format!(
                    "<div class=\"confirm-delete-note\" role=\"alertdialog\"><span>{}</span>\
                     <div class=\"actions\"><button type=\"button\" class=\"btn-sm btn-danger \
                     confirm-delete\" data-act=\"delete\" data-key=\"{key}\">{}</button>\
                     <button type=\"button\" class=\"btn-sm cancel-delete\" data-act=\"keep\" \
                     data-key=\"{key}\">{}</button></div></div>",
                    escape_html(&question),
                    t(Msg::Delete),
                    t(Msg::Cancel),
                )
            } else {
                String::new()
            };
            format!(
                "<li class=\"memory-note\" data-key=\"{key}\"><div class=\"memory-head\">\
                 <strong class=\"memory-key\">{key}</strong>\
                 <span class=\"memory-when\">{saved}</span>\
                 <span class=\"memory-actions\"><button type=\"button\" class=\"btn-sm edit-note\" \
                 data-act=\"edit\" data-key=\"{key}\">{}</button>\
                 <button type=\"button\" class=\"btn-icon btn-sm btn-ghost ask-delete-note\" \
                 data-act=\"ask-delete\" data-key=\"{key}\" aria-label=\"{delete}\" \
                 title=\"{delete}\">{}</button></span></div>\
                 <p class=\"memory-value\">{}</p>{confirm}</li>",
                t(Msg::Edit),
                icon_html(Icon::Trash),
                escape_html(&note.value),
                delete = t(Msg::Delete),
            )
        })
        .collect()
}

/// The new note's form, or the button that opens it.
pub fn memory_add_html(lang: Lang, editor: &MemoryEditor) -> String {
    match editor.target {
        NoteTarget::New => {
            format!("<div class=\"memory-form card\">{}</div>", form_html(lang, editor))
        }
        NoteTarget::Closed | NoteTarget::Stored(_) => format!(
            "<button type=\"button\" class=\"add-note\" data-act=\"add\">{}{}</button>",
            icon_html(Icon::Plus),
            escape_html(i18n::text(lang, Msg::MemoryAdd))
        ),
    }
}

#[cfg(test)]
#[path = "memory_notes_tests.rs"]
mod tests;
