//! The options page's MCP servers as HTML text: the section's head, the import box and its
//! preview, the server form, and each stored server's card with its tools and last calls.
//! Everything from outside (names, URLs, what a server says its tools do, error reasons) is
//! escaped: a server's descriptions are untrusted text, never markup.
//!
//! Written as text for the reason `connection_markup` gives (the UI's wasm size budget); the
//! section handles the events (`views::mcp_section`): clicks by `data-act` (with `data-id`,
//! `data-index`), fields by `name`. The end-to-end tests find the parts by the same classes.

use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::McpStatus;

use super::connection_markup::icon_html;
use super::mcp_form::AUTH_CHOICES;
use super::mcp_form::CONNECT_CHOICES;
use super::mcp_form::ImportProblem;
use super::mcp_form::ImportRow;
use super::mcp_form::McpForm;
use super::mcp_form::McpImport;
use super::mcp_form::connect_action;
use super::mcp_form::outcome_text;
use super::mcp_form::sign_in_sites;
use super::mcp_form::status_text;
use super::memory_notes::local_time;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;

/// The section's title and what it is, its "Add a server" and "Paste mcpServers JSON" buttons
/// (`can_add`: no form or import box is open), and with no server stored and nothing open what
/// to do.
pub fn head_html(lang: Lang, can_add: bool, none_stored: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let buttons = if can_add {
        format!(
            "<div class=\"mcp-head-actions\">\
             <button type=\"button\" class=\"btn-sm add-mcp\" data-act=\"add\">{}{}</button>\
             <button type=\"button\" class=\"btn-sm btn-ghost import-mcp\" data-act=\"import\">{}</button></div>",
            icon_html(Icon::Plus),
            t(Msg::McpAdd),
            t(Msg::McpImportOpen),
        )
    } else {
        String::new()
    };
    let empty = if none_stored && can_add {
        format!("<p class=\"mcp-empty\">{}</p>", t(Msg::McpNone))
    } else {
        String::new()
    };
    format!(
        "<div class=\"section-head\"><h2>{}</h2>{buttons}</div><p class=\"section-intro\">{}</p>{empty}",
        t(Msg::McpServers),
        t(Msg::McpIntro),
    )
}

/// The import box's text field, showing what was pasted. Drawn again only when the box opens,
/// never while typing.
pub fn import_box_html(lang: Lang, import: &McpImport) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    format!(
        "<label class=\"field\"><span>{label}</span><textarea name=\"mcp-import\" rows=\"6\" \
         spellcheck=\"false\" autocomplete=\"off\" placeholder=\"{{&quot;mcpServers&quot;: {{ … }}}}\">{text}</textarea>\
         <span class=\"hint\">{hint}</span></label>",
        label = t(Msg::McpImportLabel),
        text = escape_html(&import.text),
        hint = t(Msg::McpImportHint),
    )
}

/// What the pasted text holds, one row per entry (a box to tick for a server that can be
/// added), and the buttons: Preview, Add selected, Cancel.
pub fn import_preview_html(lang: Lang, import: &McpImport) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let rows = match &import.preview {
        Some(Ok(rows)) => rows
            .iter()
            .enumerate()
            .map(|(index, row)| import_row_html(lang, index, row))
            .collect::<String>(),
        Some(Err(_)) | None => String::new(),
    };
    let list = if rows.is_empty() {
        String::new()
    } else {
        format!("<ul class=\"mcp-import-rows\">{rows}</ul>")
    };
    let add = if import.chosen().is_empty() { " disabled" } else { "" };
    format!(
        "{list}<div class=\"actions\">\
         <button type=\"button\" class=\"btn-sm preview-import\" data-act=\"import-read\">{preview}</button>\
         <button type=\"button\" class=\"btn-sm btn-primary add-import\" data-act=\"import-add\"{add}>{add_selected}</button>\
         <button type=\"button\" class=\"btn-sm btn-ghost cancel-import\" data-act=\"import-cancel\">{cancel}</button></div>",
        preview = t(Msg::McpImportRead),
        add_selected = t(Msg::McpImportAdd),
        cancel = t(Msg::Cancel),
    )
}

fn import_row_html(lang: Lang, index: usize, row: &ImportRow) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    match row {
        ImportRow::Addable { server, chosen } => format!(
            "<li class=\"mcp-import-row\" data-kind=\"remote\"><label class=\"check\">\
             <input type=\"checkbox\" name=\"mcp-import-pick\" data-index=\"{index}\"{checked}>\
             <span class=\"mcp-import-text\"><strong>{name}</strong><span class=\"mcp-import-detail\">{url}</span></span></label></li>",
            checked = if *chosen { " checked" } else { "" },
            name = escape_html(&server.name),
            url = escape_html(&server.url),
        ),
        ImportRow::NeedsNativeHost { name, command } => format!(
            "<li class=\"mcp-import-row\" data-kind=\"command\">{mark}<span class=\"mcp-import-text\">\
             <strong>{name}</strong><code class=\"mcp-import-detail\">{command}</code>\
             <span class=\"mcp-import-why\">{why}</span></span></li>",
            mark = icon_html(Icon::Plug),
            name = escape_html(name),
            command = escape_html(command),
            why = t(Msg::McpImportNeedsHost),
        ),
        ImportRow::Unusable { name, problem } => {
            let why = match problem {
                ImportProblem::Said(reason) => escape_html(&i18n::engine_text(lang, reason)),
                ImportProblem::BadUrl => t(Msg::McpImportBadUrl),
            };
            format!(
                "<li class=\"mcp-import-row\" data-kind=\"invalid\">{mark}<span class=\"mcp-import-text\">\
                 <strong>{name}</strong><span class=\"mcp-import-why\">{why}</span></span></li>",
                mark = icon_html(Icon::Warning),
                name = escape_html(name),
            )
        }
    }
}

/// The server form's fields, showing `form`'s values. Problems and buttons are drawn apart
/// ([`super::connection_markup::problems_html`], [`form_actions_html`]) so that typing never
/// draws the fields again.
pub fn form_html(lang: Lang, form: &McpForm) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let options = |choices: &[(bool, &str, Msg)]| -> String {
        choices
            .iter()
            .map(|(selected, value, label)| {
                let selected = if *selected { " selected" } else { "" };
                format!("<option value=\"{value}\"{selected}>{}</option>", t(*label))
            })
            .collect()
    };
    let auths: Vec<(bool, &str, Msg)> =
        AUTH_CHOICES.iter().map(|(a, v, m)| (*a == form.auth, *v, *m)).collect();
    let connects: Vec<(bool, &str, Msg)> =
        CONNECT_CHOICES.iter().map(|(c, v, m)| (*c == form.connect, *v, *m)).collect();
    let secret = match form.auth {
        McpAuth::None => String::new(),
        McpAuth::Bearer => token_html(lang, form),
        McpAuth::Oauth => format!(
            "<label class=\"field\"><span>{}</span><input type=\"text\" name=\"mcp-client-id\" \
             autocomplete=\"off\" spellcheck=\"false\" value=\"{}\"><span class=\"hint\">{}</span></label>",
            t(Msg::McpClientId),
            escape_html(&form.oauth_client_id),
            t(Msg::McpClientIdHint),
        ),
    };
    let saved_headers = if form.saved_headers.is_empty() {
        String::new()
    } else {
        let names = form.saved_headers.join(", ");
        format!(
            "<span class=\"hint\">{}</span>",
            escape_html(&i18n::format(lang, Msg::SavedHeaders, &[("names", &names)]))
        )
    };
    format!(
        "<label class=\"field\"><span>{name_label}</span><input type=\"text\" name=\"mcp-name\" \
         autocomplete=\"off\" spellcheck=\"false\" value=\"{name}\"></label>\
         <label class=\"field\"><span>{url_label}</span><input type=\"url\" name=\"mcp-url\" \
         autocomplete=\"off\" spellcheck=\"false\" placeholder=\"https://\" value=\"{url}\">\
         <span class=\"hint\">{url_hint}</span></label>\
         <label class=\"field\"><span>{auth_label}</span><select name=\"mcp-auth\">{auths}</select></label>\
         {secret}\
         <div class=\"field-row\"><label class=\"field\"><span>{connect_label}</span>\
         <select name=\"mcp-connect\">{connects}</select></label>\
         <label class=\"field\"><span>{timeout_label}</span><input type=\"text\" name=\"mcp-timeout\" \
         inputmode=\"numeric\" autocomplete=\"off\" placeholder=\"60\" value=\"{timeout}\">\
         <span class=\"hint\">{timeout_hint}</span></label></div>\
         <details class=\"advanced\"><summary>{advanced}</summary><div class=\"advanced-body\">\
         <label class=\"field\"><span>{headers_label}</span><textarea class=\"headers\" name=\"mcp-headers\" \
         rows=\"2\" spellcheck=\"false\" placeholder=\"Name: value\">{headers}</textarea>{saved_headers}</label>\
         </div></details>",
        name_label = t(Msg::McpName),
        name = escape_html(&form.name),
        url_label = t(Msg::McpUrl),
        url = escape_html(&form.url),
        url_hint = t(Msg::McpUrlHint),
        auth_label = t(Msg::McpAuth),
        auths = options(&auths),
        connect_label = t(Msg::McpConnectWhen),
        connects = options(&connects),
        timeout_label = t(Msg::McpTimeout),
        timeout = escape_html(&form.timeout_s),
        timeout_hint = t(Msg::McpTimeoutHint),
        advanced = t(Msg::Advanced),
        headers_label = t(Msg::CustomHeaders),
        headers = escape_html(&form.headers),
    )
}

/// The bearer token: "a token is saved" with Replace, or a box to type one (never the stored
/// value, which the page does not have).
fn token_html(lang: Lang, form: &McpForm) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let control = if form.token_box() {
        format!(
            "<input type=\"password\" name=\"mcp-token\" autocomplete=\"off\" spellcheck=\"false\" \
             aria-label=\"{}\" value=\"{}\">",
            t(Msg::McpToken),
            escape_html(&form.token)
        )
    } else {
        format!(
            "<div class=\"key-row\"><span class=\"saved-key saved-token\">{}{}</span>\
             <button type=\"button\" class=\"btn-sm btn-ghost replace-token\" data-act=\"replace-token\">{}</button></div>",
            icon_html(Icon::Check),
            t(Msg::McpTokenSaved),
            t(Msg::McpReplaceToken),
        )
    };
    let hint = if form.token_saved {
        format!("<span class=\"hint\">{}</span>", t(Msg::McpTokenHint))
    } else {
        String::new()
    };
    format!("<div class=\"field mcp-token\"><span>{}</span>{control}{hint}</div>", t(Msg::McpToken))
}

/// The form's buttons: save (disabled, saying so, while a save is on its way) and cancel.
pub fn form_actions_html(lang: Lang, waiting: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    format!(
        "<button type=\"submit\" class=\"btn-primary save-mcp\"{}>{}</button>\
         <button type=\"button\" class=\"cancel-mcp\" data-act=\"cancel\">{}</button>",
        if waiting { " disabled" } else { "" },
        t(if waiting { Msg::McpSaving } else { Msg::McpSave }),
        t(Msg::Cancel),
    )
}

/// What a server's card shows besides the server itself.
#[derive(Debug, Clone, Copy)]
pub struct ServerCard {
    /// Deleting it waits for a confirmation.
    pub confirming: bool,
    /// Its tools and calls are shown.
    pub expanded: bool,
    /// Minutes east of UTC, for the times of its calls.
    pub utc_offset_min: i32,
}

/// A stored server's card: its switch, name, status and URL, Connect/Retry, Edit, Delete, and
/// when expanded its tools (each with a switch) and last calls.
pub fn server_html(lang: Lang, view: &McpServerView, card: ServerCard) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let id = escape_html(&view.id);
    let name = escape_html(&view.name);
    let (state, status) = status_text(lang, &view.status, view.enabled);
    let busy = if view.enabled && view.status == McpStatus::Connecting {
        "<span class=\"spinner\" aria-hidden=\"true\"></span>"
    } else {
        ""
    };
    let sites = sign_in_sites(view);
    let sites = if sites.is_empty() {
        String::new()
    } else {
        let text = i18n::format(lang, Msg::McpSignInSites, &[("sites", &sites.join(", "))]);
        format!("<p class=\"mcp-sign-in-sites\">{}</p>", escape_html(&text))
    };
    let connect = connect_action(&view.status, view.enabled)
        .map(|msg| {
            format!(
                "<button type=\"button\" class=\"btn-sm connect-mcp\" data-act=\"connect\" \
                 data-id=\"{id}\">{}{}</button>",
                icon_html(Icon::Refresh),
                t(msg)
            )
        })
        .unwrap_or_default();
    let confirm = if card.confirming {
        format!(
            "<div class=\"confirm-delete-mcp\" role=\"alertdialog\"><span>{}</span><div class=\"actions\">\
             <button type=\"button\" class=\"btn-sm btn-danger confirm-delete\" data-act=\"delete\" data-id=\"{id}\">{}</button>\
             <button type=\"button\" class=\"btn-sm cancel-delete\" data-act=\"keep\" data-id=\"{id}\">{}</button></div></div>",
            escape_html(&i18n::format(lang, Msg::McpConfirmDelete, &[("name", &view.name)])),
            t(Msg::Delete),
            t(Msg::Cancel),
        )
    } else {
        String::new()
    };
    let details =
        if card.expanded { details_html(lang, view, card.utc_offset_min) } else { String::new() };
    format!(
        "<li class=\"mcp-server card\" data-server=\"{id}\" data-status=\"{state}\">\
         <div class=\"mcp-head\">\
         <input type=\"checkbox\" role=\"switch\" class=\"switch\" name=\"mcp-enabled\" data-id=\"{id}\" \
         aria-label=\"{switch}\" title=\"{switch}\"{on}>\
         <div class=\"mcp-summary\"><div class=\"mcp-title\"><strong class=\"mcp-name\">{name}</strong>\
         <span class=\"chip mcp-status\" data-state=\"{state}\" role=\"status\">{busy}{status}</span></div>\
         <p class=\"mcp-url\">{url}</p>{sites}</div>\
         <div class=\"mcp-actions\">{connect}\
         <button type=\"button\" class=\"btn-sm btn-ghost edit-mcp\" data-act=\"edit\" data-id=\"{id}\">{pencil}{edit}</button>\
         <button type=\"button\" class=\"btn-sm btn-ghost btn-icon delete-mcp\" data-act=\"ask-delete\" \
         data-id=\"{id}\" aria-label=\"{delete}\" title=\"{delete}\">{trash}</button></div></div>{confirm}\
         <button type=\"button\" class=\"btn-sm btn-ghost mcp-details-toggle\" data-act=\"details\" \
         data-id=\"{id}\" aria-expanded=\"{expanded}\">{chevron}{details_label}</button>{details}</li>",
        switch = escape_html(&i18n::format(lang, Msg::McpSwitch, &[("name", &view.name)])),
        on = if view.enabled { " checked" } else { "" },
        status = escape_html(&status),
        url = escape_html(&view.url),
        pencil = icon_html(Icon::Pencil),
        edit = t(Msg::Edit),
        delete = t(Msg::Delete),
        trash = icon_html(Icon::Trash),
        expanded = card.expanded,
        chevron = icon_html(Icon::ChevronRight),
        details_label = t(Msg::McpShowDetails),
    )
}

/// A server's tools (title, name, description as text, a switch each) and its last calls
/// (tool, time, outcome, what went wrong).
fn details_html(lang: Lang, view: &McpServerView, utc_offset_min: i32) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let id = escape_html(&view.id);
    let tools: String = view
        .tools
        .iter()
        .map(|tool| {
            let name = escape_html(&tool.name);
            let on = !view.disabled_tools.contains(&tool.name);
            let description = if tool.description.trim().is_empty() {
                String::new()
            } else {
                format!("<span class=\"mcp-tool-desc\">{}</span>", escape_html(tool.description.trim()))
            };
            // The server's name beside the title only when it says something more.
            let code = if tool.title == tool.name {
                String::new()
            } else {
                format!("<code class=\"mcp-tool-name\">{name}</code>")
            };
            format!(
                "<li class=\"mcp-tool\" data-tool=\"{name}\"><input type=\"checkbox\" role=\"switch\" \
                 class=\"switch\" name=\"mcp-tool\" data-id=\"{id}\" value=\"{name}\" aria-label=\"{label}\"{checked}>\
                 <span class=\"mcp-tool-text\"><span class=\"mcp-tool-title\">{title}</span>\
                 {code}{description}</span></li>",
                label = escape_html(&i18n::format(lang, Msg::McpToolSwitch, &[("tool", &tool.title)])),
                checked = if on { " checked" } else { "" },
                title = escape_html(&tool.title),
            )
        })
        .collect();
    let tools = if tools.is_empty() {
        format!("<p class=\"mcp-none\">{}</p>", t(Msg::McpNoTools))
    } else {
        // What the switches are for: every offered tool's spec goes with every model call.
        let cost = match view.offered_tokens {
            0 => String::new(),
            n => format!(
                "<p class=\"mcp-cost\">{}</p>",
                escape_html(&i18n::format(lang, Msg::McpToolsCost, &[("n", &n.to_string())]))
            ),
        };
        format!("<ul class=\"mcp-tools\">{tools}</ul>{cost}")
    };
    let calls: String = view
        .recent_calls
        .iter()
        .map(|call| {
            let (outcome, words) = outcome_text(call.outcome);
            let detail = call
                .detail
                .as_deref()
                .map(|d| {
                    format!(
                        "<p class=\"mcp-call-detail\">{}</p>",
                        escape_html(&i18n::engine_text(lang, d))
                    )
                })
                .unwrap_or_default();
            format!(
                "<li class=\"mcp-call\" data-outcome=\"{outcome}\"><div class=\"mcp-call-line\">\
                 <code class=\"mcp-call-tool\">{tool}</code><span class=\"mcp-call-outcome\">{words}</span>\
                 <time class=\"mcp-call-when\">{when}</time></div>{detail}</li>",
                tool = escape_html(&call.tool),
                words = t(words),
                when = local_time(call.at_ms, utc_offset_min),
            )
        })
        .collect();
    let calls = if calls.is_empty() {
        format!("<p class=\"mcp-none\">{}</p>", t(Msg::McpNoCalls))
    } else {
        format!("<ul class=\"mcp-calls\">{calls}</ul>")
    };
    format!(
        "<div class=\"mcp-details\"><h3>{}</h3>{tools}<h3>{}</h3>{calls}</div>",
        t(Msg::McpTools),
        t(Msg::McpRecentCalls),
    )
}

#[cfg(test)]
#[path = "mcp_markup_tests.rs"]
mod tests;
