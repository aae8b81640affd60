//! The engine and the model providers speak English: tool names are wire names (`read_page`),
//! and refusals, tool notes and provider errors are English sentences. This module shows them in
//! the page's language: a known tool name becomes its catalog title, and a known English text
//! is matched against the catalog entries whose English side is written exactly as the engine
//! and the providers write it (`{placeholders}` stand for the variable parts), then given in the
//! other language. A text that matches nothing is shown as it came, never half translated.
//!
//! A provider error reads "{connection}: {what happened} (HTTP {status}). {What to check}."
//! (see `panelot-providers`); it is translated sentence by sentence, and what the server itself
//! said (“…”) stays as it was.

use super::Lang;
use super::Msg;
use super::english;
use super::format;

/// Every tool of the engine's catalog with its title.
const TOOLS: &[(&str, Msg)] = &[
    ("tabs_list", Msg::ToolTabsList),
    ("tab_open", Msg::ToolTabOpen),
    ("tab_focus", Msg::ToolTabFocus),
    ("tab_close", Msg::ToolTabClose),
    ("navigate", Msg::ToolNavigate),
    ("go_back", Msg::ToolGoBack),
    ("go_forward", Msg::ToolGoForward),
    ("history_search", Msg::ToolHistorySearch),
    ("bookmarks_search", Msg::ToolBookmarksSearch),
    ("top_sites", Msg::ToolTopSites),
    ("sessions_recently_closed", Msg::ToolRecentlyClosed),
    ("session_restore", Msg::ToolSessionRestore),
    ("tab_groups_list", Msg::ToolTabGroupsList),
    ("tabs_group", Msg::ToolTabsGroup),
    ("tab_group_update", Msg::ToolTabGroupUpdate),
    ("read_page", Msg::ToolReadPage),
    ("find_in_page", Msg::ToolFindInPage),
    ("extract", Msg::ToolExtract),
    ("get_selection", Msg::ToolGetSelection),
    ("click", Msg::ToolClick),
    ("type", Msg::ToolType),
    ("select_option", Msg::ToolSelectOption),
    ("scroll", Msg::ToolScroll),
    ("hover", Msg::ToolHover),
    ("wait_for", Msg::ToolWaitFor),
    ("press_key", Msg::ToolPressKey),
    ("batch_actions", Msg::ToolBatch),
    ("click_trusted", Msg::ToolClickTrusted),
    ("type_trusted", Msg::ToolTypeTrusted),
    ("screenshot", Msg::ToolScreenshot),
    ("run_javascript", Msg::ToolRunJavascript),
    ("read_page_deep", Msg::ToolReadPageDeep),
    ("click_xy", Msg::ToolClickXy),
    ("drag", Msg::ToolDrag),
    ("upload_file", Msg::ToolUploadFile),
    ("ask_user", Msg::ToolAskUser),
    ("request_user_action", Msg::ToolRequestUserAction),
    ("fetch_url", Msg::ToolFetchUrl),
    ("memory_read", Msg::ToolMemoryRead),
    ("memory_write", Msg::ToolMemoryWrite),
    ("load_skill", Msg::ToolLoadSkill),
    ("load_tools", Msg::ToolLoadTools),
    ("download", Msg::ToolDownload),
    ("artifact_create", Msg::ToolArtifactCreate),
    ("watch_page", Msg::ToolWatchPage),
    ("schedule_resume", Msg::ToolScheduleResume),
];

/// Whole texts of the engine (refusals, tool notes) and of the extension's host.
const NOTICES: &[Msg] = &[
    Msg::EngineEmptyMessage,
    Msg::EngineNothingRunning,
    Msg::EngineNoUncertainCall,
    Msg::EngineNoThread,
    Msg::EngineNoConnection,
    Msg::EngineNoPreset,
    Msg::EngineNoRule,
    Msg::EngineNodeNotInThread,
    Msg::EngineQueueFull,
    Msg::EngineTurnOver,
    Msg::EngineNotQueued,
    Msg::EngineNotWaiting,
    Msg::EngineThreadChanged,
    Msg::EngineTooManyConnections,
    Msg::EngineTooManyRules,
    Msg::EngineTooManyPresets,
    Msg::EngineMemoryFull,
    Msg::EngineNoNote,
    Msg::EngineBadRule,
    Msg::EngineTitleLength,
    Msg::EnginePresetNameLength,
    Msg::EngineInstructionsLength,
    Msg::EngineTemperature,
    Msg::EngineNoConnections,
    Msg::EngineTurnStopped,
    Msg::EngineDenied,
    Msg::EngineNoTool,
    Msg::EngineToolOff,
    Msg::EngineBadParams,
    Msg::EngineConnectionOff,
];

/// What happened, in a provider error (before its status).
const CONCLUSIONS: &[Msg] = &[
    Msg::ProviderBadKey,
    Msg::ProviderFlagged,
    Msg::ProviderForbidden,
    Msg::ProviderQuota,
    Msg::ProviderProxyKey,
    Msg::ProviderNoModel,
    Msg::ProviderNoApi,
    Msg::ProviderRateLimit,
    Msg::ProviderOverloaded,
    Msg::ProviderContext,
    Msg::ProviderFiltered,
    Msg::ProviderTimeout,
    Msg::ProviderRefused,
    Msg::ProviderFailed,
    Msg::ProviderOddStatus,
    Msg::ProviderUnreachable,
    Msg::ProviderBrokeOff,
    Msg::ProviderCannotSend,
    Msg::ProviderSilent,
    Msg::ProviderListSlow,
    Msg::ProviderNotStream,
    Msg::ProviderSealed,
    Msg::ProviderEmpty,
    Msg::ProviderCutTool,
    Msg::ProviderAborted,
];

/// What to check, in a provider error (whole sentences, with their period).
const ADVICE: &[Msg] = &[
    Msg::AdviceKey,
    Msg::AdvicePermission,
    Msg::AdviceQuota,
    Msg::AdviceBaseUrl,
    Msg::AdviceModel,
    Msg::AdviceRequest,
    Msg::AdviceUpstream,
    Msg::AdviceFormat,
    Msg::AdviceBrokeOff,
    Msg::AdviceUnreachable,
    Msg::AdviceStalled,
    Msg::AdviceConnection,
    Msg::AdviceRate,
    Msg::AdviceLater,
    Msg::AdviceContext,
    Msg::AdviceRephrase,
];

/// The title of the tool `name` in `lang`: a catalog tool's title, an MCP tool
/// (`mcp__server__tool`) as "tool (server)", anything else as it is. The engine's card label of
/// a tool (its name with spaces, `read page`) is known too.
pub fn tool_title(lang: Lang, name: &str) -> String {
    let wire = name.replace(' ', "_");
    if let Some((_, msg)) = TOOLS.iter().find(|(known, _)| *known == wire) {
        return super::text(lang, *msg).to_owned();
    }
    if let Some(rest) = name.strip_prefix("mcp__")
        && let Some((server, tool)) = rest.split_once("__")
    {
        return format(lang, Msg::ToolMcp, &[("tool", tool), ("server", server)]);
    }
    name.to_owned()
}

/// `text` of the engine or a provider in `lang`; as it is when it is not known.
pub fn engine_text(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => text.to_owned(),
        Lang::ZhCn => translate(lang, text).unwrap_or_else(|| text.to_owned()),
    }
}

fn translate(lang: Lang, text: &str) -> Option<String> {
    if let Some(done) = whole(lang, NOTICES, text) {
        return Some(done);
    }
    // A provider error: the connection's name, then its sentences.
    let (name, rest) = text.split_once(": ")?;
    Some(format!("{name}：{}", sentences(lang, rest)?))
}

/// `text` matched against the English of one of `known`, given in `lang`. A nested message
/// (`{message}`) is translated too.
fn whole(lang: Lang, known: &[Msg], text: &str) -> Option<String> {
    known.iter().find_map(|msg| {
        let args = matches(english(*msg), text)?;
        let translated: Vec<(&str, String)> = args
            .iter()
            .map(|(name, value)| {
                let value = match *name {
                    "message" => engine_text(lang, value),
                    _ => (*value).to_owned(),
                };
                (*name, value)
            })
            .collect();
        let borrowed: Vec<(&str, &str)> =
            translated.iter().map(|(name, value)| (*name, value.as_str())).collect();
        Some(format(lang, *msg, &borrowed))
    })
}

/// The sentences of a provider error in `lang`, each known; `None` if one is not.
fn sentences(lang: Lang, text: &str) -> Option<String> {
    let (text, said) = match text.split_once(" The server said: “") {
        Some((before, said)) => (before, Some(said.trim_end_matches('”'))),
        None => (text, None),
    };
    let mut out = String::new();
    for sentence in text.split_inclusive(". ").map(str::trim).filter(|s| !s.is_empty()) {
        if let Some(advice) = whole(lang, ADVICE, sentence) {
            out.push_str(&advice);
            continue;
        }
        let bare = sentence.trim_end_matches('.');
        out.push_str(&conclusion(lang, bare)?);
        // A retry's message is one phrase without a period; keep it that way.
        if bare.len() < sentence.len() {
            out.push('。');
        }
    }
    if let Some(said) = said {
        out.push_str(&format(lang, Msg::ServerSaid, &[("said", said)]));
    }
    Some(out)
}

/// What happened, with its status or stream note.
fn conclusion(lang: Lang, text: &str) -> Option<String> {
    for wrapper in [Msg::ProviderHttpStatus, Msg::ProviderInStream] {
        if let Some(args) = matches(english(wrapper), text)
            && let Some((_, inner)) = args.iter().find(|(name, _)| *name == "text")
            && let Some(inner) = whole(lang, CONCLUSIONS, inner)
        {
            let status = args.iter().find(|(name, _)| *name == "status").map_or("", |(_, v)| v);
            return Some(format(lang, wrapper, &[("text", &inner), ("status", status)]));
        }
    }
    whole(lang, CONCLUSIONS, text)
}

/// The values of `pattern`'s `{placeholders}` when `text` is `pattern` filled in; each value
/// is non-empty. Literal parts are found left to right; the last one must end the text.
fn matches<'t>(pattern: &'static str, text: &'t str) -> Option<Vec<(&'static str, &'t str)>> {
    let mut values = Vec::new();
    let (first, mut rest_pattern) = split_literal(pattern);
    let mut rest = text.strip_prefix(first)?;
    while let Some(open) = rest_pattern.strip_prefix('{') {
        let (name, after) = open.split_once('}')?;
        let (literal, next_pattern) = split_literal(after);
        let value = if next_pattern.is_empty() {
            // The last placeholder runs to where the final literal starts.
            rest.strip_suffix(literal)?
        } else {
            &rest[..rest.find(literal).filter(|_| !literal.is_empty())?]
        };
        if value.is_empty() {
            return None;
        }
        values.push((name, value));
        rest = &rest[value.len() + literal.len()..];
        rest_pattern = next_pattern;
    }
    rest.is_empty().then_some(values)
}

/// The literal text at the start of `pattern` and what follows it (from its next `{`).
fn split_literal(pattern: &'static str) -> (&'static str, &'static str) {
    let end = pattern.find('{').unwrap_or(pattern.len());
    pattern.split_at(end)
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
