//! The options page's connections as HTML text: the connection form, each stored connection's
//! card and the findings of its check. Every value from outside (names, URLs, models, what a
//! server said) is escaped.
//!
//! Why text and not Leptos views: Leptos compiles render code for every element tree and every
//! closure of a view, and the UI's wasm has a hard size budget. These parts are mostly static
//! text around a few controls, so they are written as HTML and the section handles their
//! events in one place (`views::connections_section`), which costs a fraction of the code.
//! Controls are found by `data-act` (buttons, with `data-id` and `data-index`) and `name`
//! (fields); the end-to-end tests find them by the same classes.

use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ConnectionTemplateView;
use panelot_protocol::engine::ConnectionView;

use super::connection_form::ConnectionForm;
use super::connection_form::ConnectionKind;
use super::connection_form::KeyRow;
use super::connection_form::StepState;
use super::connection_form::check_steps;
use super::connection_form::key_count_text;
use super::connection_form::quirk_text;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;

/// The section's title, its "Add a connection" button (`can_add`), what a connection is, and
/// on first run (`none_stored`) what to do.
pub fn head_html(lang: Lang, can_add: bool, none_stored: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let add = if can_add {
        format!(
            "<button type=\"button\" class=\"btn-sm add-connection\" data-act=\"add\">{}{}</button>",
            icon_html(Icon::Plus),
            t(Msg::AddConnection)
        )
    } else {
        String::new()
    };
    let first_run = if none_stored {
        format!("<p class=\"first-run\">{}</p>", t(Msg::NoModelConfigured))
    } else {
        String::new()
    };
    format!(
        "<div class=\"section-head\"><h2>{}</h2>{add}</div><p class=\"section-intro\">{}</p>{first_run}",
        t(Msg::Connections),
        t(Msg::ConnectionsIntro)
    )
}

/// What a card shows besides the connection itself.
#[derive(Debug, Clone, Copy)]
pub struct CardState<'a> {
    /// The provider's name, when a template matches.
    pub provider: Option<&'a str>,
    /// The last check: `None` never checked, `Some(None)` running.
    pub check: Option<&'a Option<ConnectionCheck>>,
    /// Deleting it waits for a confirmation.
    pub confirming: bool,
    /// The model chosen in its picker.
    pub chosen: &'a str,
}

/// A stored connection's card.
pub fn card_html(lang: Lang, view: &ConnectionView, state: CardState<'_>) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let kind = match view.kind {
        panelot_protocol::engine::ConnectionKind::Openai => ConnectionKind::OpenAiCompatible,
        panelot_protocol::engine::ConnectionKind::Anthropic => ConnectionKind::Anthropic,
    };
    let provider = state.provider.map_or_else(|| t(kind.label()), escape_html);
    let model = view.model_ids.first().map_or_else(|| t(Msg::NoModelChosen), |m| escape_html(m));
    let host = crate::state::urls::origin_of(&view.base_url)
        .and_then(|o| o.split_once("://").map(|(_, host)| host.to_owned()))
        .unwrap_or_else(|| view.base_url.clone());
    let id = escape_html(view.id.as_str());
    let confirm = if state.confirming {
        format!(
            "<div class=\"confirm-delete-connection\" role=\"alertdialog\"><span>{}</span>\
             <div class=\"actions\">{}{}</div></div>",
            escape_html(&i18n::format(lang, Msg::ConfirmDeleteConnection, &[("name", &view.name)])),
            button("btn-sm btn-danger confirm-delete", "delete", &id, None, &t(Msg::Delete)),
            button("btn-sm cancel-delete", "keep", &id, None, &t(Msg::Cancel)),
        )
    } else {
        String::new()
    };
    let report = state.check.map(|check| report_html(lang, check.as_ref())).unwrap_or_default();
    let picker = state
        .check
        .and_then(|c| c.as_ref())
        .and_then(|c| c.models.as_deref())
        .filter(|models| !models.is_empty())
        .map(|models| picker_html(lang, &id, models, state.chosen, view.model_ids.first()))
        .unwrap_or_default();
    let delete = format!(
        "<button type=\"button\" class=\"btn-sm btn-ghost btn-icon delete-connection\" \
         data-act=\"ask-delete\" data-id=\"{id}\" aria-label=\"{0}\" title=\"{0}\">{1}</button>",
        t(Msg::Delete),
        icon_html(Icon::Trash)
    );
    format!(
        "<li class=\"connection card\" data-connection=\"{id}\"><div class=\"connection-head\">\
         <div class=\"connection-summary\"><div class=\"connection-title\">\
         <strong class=\"connection-name\">{name}</strong>\
         <span class=\"connection-provider\">{provider}</span></div>\
         <p class=\"connection-facts\"><span class=\"connection-model\">{model}</span>\
         <span class=\"connection-host\">{host}</span>\
         <span class=\"connection-keys\">{keys}</span></p></div>\
         <div class=\"connection-actions\">{check}{edit}{delete}</div></div>{confirm}{report}{picker}</li>",
        name = escape_html(&view.name),
        host = escape_html(&host),
        keys = escape_html(&key_count_text(lang, view.key_count)),
        check = button(
            "btn-sm btn-ghost verify",
            "check",
            &id,
            Some(Icon::Refresh),
            &t(Msg::CheckAgain)
        ),
        edit = button(
            "btn-sm btn-ghost edit-connection",
            "edit",
            &id,
            Some(Icon::Pencil),
            &t(Msg::Edit)
        ),
    )
}

/// The models a check listed, to pick the connection's model from.
fn picker_html(
    lang: Lang,
    id: &str,
    models: &[String],
    chosen: &str,
    current: Option<&String>,
) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let placeholder = if chosen.is_empty() {
        format!("<option value=\"\" selected>{}</option>", t(Msg::ChooseModel))
    } else {
        String::new()
    };
    let options: String = models
        .iter()
        .map(|m| {
            let selected = if m == chosen { " selected" } else { "" };
            format!("<option value=\"{0}\"{selected}>{0}</option>", escape_html(m))
        })
        .collect();
    let unchanged = chosen.is_empty() || current.is_some_and(|c| c == chosen);
    format!(
        "<div class=\"model-picker\"><label class=\"field\"><span>{label} \
         <span class=\"hint\">{listed}</span></span>\
         <select class=\"pick-model\" name=\"pick-model\" data-id=\"{id}\">{placeholder}{options}</select>\
         </label><button type=\"button\" class=\"btn-sm use-model\" data-act=\"use-model\" \
         data-id=\"{id}\"{disabled}>{use_it}</button></div>",
        label = t(Msg::ModelToUse),
        listed = escape_html(&i18n::format(
            lang,
            Msg::ModelsListed,
            &[("n", &models.len().to_string())]
        )),
        disabled = if unchanged { " disabled" } else { "" },
        use_it = t(Msg::UseModel),
    )
}

/// A check: "checking…" while it runs (`None`), else the verdict, each step and what the
/// server said.
pub fn report_html(lang: Lang, report: Option<&ConnectionCheck>) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let Some(report) = report else {
        return format!(
            "<div class=\"check-report\" data-state=\"running\" role=\"status\">\
             <span class=\"spinner\" aria-hidden=\"true\"></span><span class=\"verdict\">{}</span></div>",
            t(Msg::Verifying)
        );
    };
    let (steps, verdict) = check_steps(report);
    let state = if report.failure.is_none() { "ok" } else { "failed" };
    let steps: String = steps
        .into_iter()
        .map(|(step, state)| {
            // Not checked is a quiet dot: no mark claims it worked or failed.
            let (mark, said) = match state {
                StepState::Passed => (icon_html(Icon::Check), Msg::StepPassed),
                StepState::Failed => (icon_html(Icon::Close), Msg::StepFailed),
                StepState::Unchecked => {
                    ("<span class=\"step-dot\" aria-hidden=\"true\"></span>".to_owned(), Msg::StepUnchecked)
                }
            };
            format!(
                "<li data-state=\"{}\">{mark}<span>{}</span><span class=\"visually-hidden\"> ({})</span></li>",
                state.name(),
                t(step),
                t(said)
            )
        })
        .collect();
    let diagnosis = report
        .diagnosis
        .as_ref()
        .map(|d| format!("<p class=\"diagnosis\">{}</p>", escape_html(&i18n::engine_text(lang, d))))
        .unwrap_or_default();
    format!(
        "<div class=\"check-report\" data-state=\"{state}\" role=\"status\"><p class=\"verdict\">{}</p>\
         <ul class=\"check-steps\">{steps}</ul>{diagnosis}</div>",
        t(verdict)
    )
}

/// What the form needs besides its values.
#[derive(Debug, Clone, Copy)]
pub struct FormContext<'a> {
    /// The providers to pick from.
    pub templates: &'a [ConnectionTemplateView],
    /// Every compatibility option.
    pub quirk_names: &'a [String],
    /// Models the last check listed (offered while typing a model id).
    pub listed: &'a [String],
}

/// The connection form's fields, showing `form`'s values. The problems and the buttons are
/// drawn apart ([`problems_html`], [`form_actions_html`]): they change while the person types,
/// and drawing the fields again would take the focus away.
pub fn form_html(lang: Lang, form: &ConnectionForm, cx: FormContext<'_>) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let providers: String = cx
        .templates
        .iter()
        .map(|tpl| {
            let selected = if tpl.id == form.template { " selected" } else { "" };
            format!(
                "<option value=\"{}\"{selected}>{}</option>",
                escape_html(&tpl.id),
                escape_html(&tpl.name)
            )
        })
        .collect();
    let keys: String = form
        .keys
        .iter()
        .enumerate()
        .map(|(index, row)| key_row_html(lang, index, row, &form.keys))
        .collect();
    let key_hint = t(if form.key_required { Msg::KeysHint } else { Msg::KeyOptionalHint });
    let listed: String = cx
        .listed
        .iter()
        .map(|m| format!("<option value=\"{}\"></option>", escape_html(m)))
        .collect();
    let kinds: String = ConnectionKind::ALL
        .into_iter()
        .map(|k| {
            let selected = if k == form.kind { " selected" } else { "" };
            format!("<option value=\"{}\"{selected}>{}</option>", k.value(), t(k.label()))
        })
        .collect();
    let saved_headers = if form.saved_headers.is_empty() {
        String::new()
    } else {
        let names = form.saved_headers.join(", ");
        format!(
            "<span class=\"hint\">{}</span>",
            escape_html(&i18n::format(lang, Msg::SavedHeaders, &[("names", &names)]))
        )
    };
    let quirks: String = cx
        .quirk_names
        .iter()
        .map(|name| quirk_html(lang, name, form.quirks.contains(name)))
        .collect();
    format!(
        "<label class=\"field\"><span>{provider}</span><select name=\"provider\" class=\"provider\">{providers}</select></label>\
         {name}{base_url}\
         <fieldset class=\"keys\"><legend>{keys_label}</legend><ul class=\"key-rows\">{keys}</ul>\
         <button type=\"button\" class=\"btn-sm btn-ghost add-key\" data-act=\"add-key\">{plus}{add_key}</button>\
         <p class=\"hint\">{key_hint}</p></fieldset>\
         <label class=\"field\"><span>{model_label}</span><input type=\"text\" name=\"model\" autocomplete=\"off\" \
         spellcheck=\"false\" list=\"listed-models\" value=\"{model}\"><datalist id=\"listed-models\">{listed}</datalist>\
         <span class=\"hint\">{model_hint}</span></label>\
         <details class=\"advanced\"><summary>{advanced}</summary><div class=\"advanced-body\">\
         <label class=\"field\"><span>{format_label}</span><select name=\"kind\">{kinds}</select></label>\
         <label class=\"field\"><span>{headers_label}</span><textarea class=\"headers\" name=\"headers\" rows=\"2\" \
         spellcheck=\"false\">{headers}</textarea>{saved_headers}</label>\
         <fieldset class=\"prices\"><legend>{prices}</legend><div class=\"price-row\">{price_input}{price_output}</div>\
         <p class=\"hint\">{prices_hint}</p></fieldset>\
         <fieldset class=\"quirks\"><legend>{compatibility}</legend>{quirks}</fieldset></div></details>",
        provider = t(Msg::Provider),
        name = text_field_html(&t(Msg::ConnectionName), "name", "text", &form.name),
        base_url = text_field_html(&t(Msg::BaseUrl), "base-url", "url", &form.base_url),
        keys_label = t(Msg::ApiKeys),
        plus = icon_html(Icon::Plus),
        add_key = t(Msg::AddKey),
        model_label = t(Msg::ModelField),
        model = escape_html(&form.model),
        model_hint = t(Msg::ModelHint),
        advanced = t(Msg::Advanced),
        format_label = t(Msg::ApiFormat),
        headers_label = t(Msg::CustomHeaders),
        headers = escape_html(&form.headers),
        compatibility = t(Msg::Compatibility),
        prices = t(Msg::Prices),
        price_input = price_field_html(&t(Msg::PriceInput), "price-input", &form.price_input),
        price_output = price_field_html(&t(Msg::PriceOutput), "price-output", &form.price_output),
        prices_hint = t(Msg::PricesHint),
    )
}

/// A price box: a decimal number, typed with the number keyboard on touch screens.
fn price_field_html(label: &str, name: &str, value: &str) -> String {
    format!(
        "<label class=\"field\"><span>{label}</span><input type=\"text\" name=\"{name}\" \
         inputmode=\"decimal\" autocomplete=\"off\" spellcheck=\"false\" placeholder=\"0.00\" \
         value=\"{}\"></label>",
        escape_html(value)
    )
}

/// The form's problems, one item each.
pub fn problems_html(notes: &[String]) -> String {
    notes.iter().map(|n| format!("<li>{}</li>", escape_html(n))).collect()
}

/// The form's buttons: save (disabled, saying so, while a save is on its way) and cancel.
pub fn form_actions_html(lang: Lang, waiting: bool, cancellable: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let cancel = if cancellable {
        format!(
            "<button type=\"button\" class=\"cancel-connection\" data-act=\"cancel\">{}</button>",
            t(Msg::Cancel)
        )
    } else {
        String::new()
    };
    format!(
        "<button type=\"submit\" class=\"btn-primary save-connection\"{}>{}</button>{cancel}",
        if waiting { " disabled" } else { "" },
        t(if waiting { Msg::SavingConnection } else { Msg::SaveAndCheck })
    )
}

fn text_field_html(label: &str, name: &str, kind: &str, value: &str) -> String {
    format!(
        "<label class=\"field\"><span>{label}</span><input type=\"{kind}\" name=\"{name}\" \
         autocomplete=\"off\" spellcheck=\"false\" value=\"{}\"></label>",
        escape_html(value)
    )
}

/// A key row: a stored key's placeholder (its value is never known here) or a box to type
/// one, and its remove button.
fn key_row_html(lang: Lang, index: usize, row: &KeyRow, rows: &[KeyRow]) -> String {
    // A lone empty row has nothing to remove.
    let removable = rows.len() > 1 || matches!(row, KeyRow::Saved(_));
    let number =
        |msg: Msg, n: usize| escape_html(&i18n::format(lang, msg, &[("n", &n.to_string())]));
    let input = match row {
        KeyRow::Saved(position) => format!(
            "<span class=\"saved-key\" data-key=\"{position}\">{}{}</span>",
            icon_html(Icon::Check),
            number(Msg::SavedKeyN, *position as usize)
        ),
        KeyRow::Typed(key) => format!(
            "<input type=\"password\" name=\"api-key\" data-index=\"{index}\" autocomplete=\"off\" \
             spellcheck=\"false\" aria-label=\"{}\" value=\"{}\">",
            number(Msg::KeyN, index + 1),
            escape_html(key)
        ),
    };
    let remove = if removable {
        format!(
            "<button type=\"button\" class=\"btn-icon btn-sm btn-ghost remove-key\" \
             data-act=\"remove-key\" data-index=\"{index}\" aria-label=\"{0}\" title=\"{0}\">{1}</button>",
            number(Msg::RemoveKeyN, index + 1),
            icon_html(Icon::Close)
        )
    } else {
        String::new()
    };
    format!("<li class=\"key-row\">{input}{remove}</li>")
}

/// A compatibility option: its box, its words and a hint (an unknown one by its name).
fn quirk_html(lang: Lang, name: &str, on: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let words = match quirk_text(name) {
        Some((label, hint)) => {
            format!("<span>{}</span><span class=\"hint\">{}</span>", t(label), t(hint))
        }
        None => format!("<span>{}</span>", escape_html(name)),
    };
    format!(
        "<label class=\"check quirk\"><input type=\"checkbox\" name=\"quirk\" value=\"{}\"{}>\
         <span class=\"quirk-text\">{words}</span></label>",
        escape_html(name),
        if on { " checked" } else { "" }
    )
}

/// A button carrying an action for the section's click handler.
fn button(class: &str, act: &str, id: &str, mark: Option<Icon>, text: &str) -> String {
    format!(
        "<button type=\"button\" class=\"{class}\" data-act=\"{act}\" data-id=\"{id}\">{}{text}</button>",
        mark.map(icon_html).unwrap_or_default()
    )
}

/// An icon of the sprite, as `views::icon` draws it.
pub fn icon_html(mark: Icon) -> String {
    format!(
        "<svg class=\"icon\" aria-hidden=\"true\" focusable=\"false\" data-icon=\"{}\"><use href=\"{}\"></use></svg>",
        mark.name(),
        mark.href()
    )
}

#[cfg(test)]
#[path = "connection_markup_tests.rs"]
mod tests;
