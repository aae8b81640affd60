//! Artifacts in the chat: the card of a document the agent saved (its name, kind and size, with
//! Open and Download) and the viewer that shows one over the chat page's thread.
//!
//! The viewer lives in the chat page: Markdown is drawn by the chat's own renderer (raw HTML in
//! it stays text), CSV, JSON, code and text as they are. HTML is drawn only inside
//! `viewer.html`, a manifest sandbox page framed with `sandbox="allow-scripts"`: a unique origin
//! without extension APIs, whose policy lets the document's own scripts run but fetch nothing
//! from the network (an artifact could otherwise carry what the agent read to a server), and
//! which cannot reach this page. The side panel is too narrow to read a document in: Open there
//! opens the chat page beside it, on the thread and the artifact.
//!
//! Download makes the file in the page (a `Blob` and an `<a download>`): nothing goes through
//! the engine or the network.

use leptos::prelude::*;
use panelot_protocol::artifact::ArtifactKind;
use panelot_protocol::artifact::download_mime;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

use super::copy::on_code_copy_click;
use super::icon::icon;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown;
use crate::markdown::Completeness;
use crate::state::artifacts;
use crate::state::artifacts::Artifact;
use crate::state::artifacts::Shown;

/// The card of a saved artifact, in the stream.
pub(crate) fn artifact_card(lang: Lang, artifact: Artifact) -> AnyView {
    let t = move |msg| i18n::text(lang, msg);
    let open = use_open_thread();
    let kind = use_page().kind;
    let meta =
        format!("{} · {}", t(kind_msg(artifact.kind)), artifacts::size_text(artifact.size()));
    let shown = Shown { name: artifact.filename.clone(), item_id: Some(artifact.item_id.clone()) };
    let filename = artifact.filename.clone();
    let (title, data) = (filename.clone(), filename.clone());
    let download = move |_| save_file(&artifact);
    view! {
        <article class="msg artifact-card" data-artifact=data>
            <span class="artifact-icon" aria-hidden="true">{icon(Icon::Page)}</span>
            <div class="artifact-info">
                <span class="artifact-name" title=title>{filename}</span>
                <span class="artifact-meta">{meta}</span>
            </div>
            <div class="artifact-actions">
                <button type="button" class="btn-sm open-artifact"
                    on:click=move |_| open.show_artifact(kind, shown.clone())>{t(Msg::ArtifactOpen)}</button>
                <button type="button" class="btn-sm btn-icon download-artifact"
                    aria-label=t(Msg::ArtifactDownload) title=t(Msg::ArtifactDownload)
                    on:click=download>{icon(Icon::Download)}</button>
            </div>
        </article>
    }
    .into_any()
}

/// The viewer of the open thread's artifact, over the thread (chat page).
#[component]
pub(crate) fn ArtifactViewer() -> impl IntoView {
    let open = use_open_thread();
    let page = use_page();
    let found = Memo::new(move |_| {
        let shown = open.artifact.get()?;
        let artifact = open.view.with(|v| v.as_ref().and_then(|v| artifacts::find(v, &shown)));
        Some((shown, artifact))
    });
    // The keyboard goes to the viewer when it opens, so Escape closes it.
    Effect::new(move |_| {
        if found.with(Option::is_some) {
            request_animation_frame(|| {
                let button = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| {
                        d.query_selector(".artifact-viewer .close-artifact").ok().flatten()
                    })
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(button) = button {
                    let _ = button.focus();
                }
            });
        }
    });
    let close = move || open.artifact.set(None);
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        if event.key() == "Escape" {
            event.stop_propagation();
            close();
        }
    };
    move || {
        let (shown, artifact) = found.get()?;
        let lang = page.lang.get_untracked();
        let t = move |msg| i18n::text(lang, msg);
        let meta = artifact
            .as_ref()
            .map(|a| format!("{} · {}", t(kind_msg(a.kind)), artifacts::size_text(a.size())));
        let download = artifact.clone().map(|artifact| {
            view! {
                <button type="button" class="btn-sm download-artifact"
                    on:click=move |_| save_file(&artifact)>
                    {icon(Icon::Download)}{t(Msg::ArtifactDownload)}
                </button>
            }
        });
        let body = match artifact {
            Some(artifact) => body(lang, artifact),
            None => view! { <p class="artifact-missing">{t(Msg::ArtifactMissing)}</p> }.into_any(),
        };
        let (label, title) = (shown.name.clone(), shown.name.clone());
        Some(view! {
            <div class="artifact-viewer" role="dialog" aria-modal="true"
                aria-label=label on:keydown=on_keydown>
                <header class="artifact-viewer-head">
                    <span class="artifact-icon" aria-hidden="true">{icon(Icon::Page)}</span>
                    <div class="artifact-info">
                        <span class="artifact-name" title=title>{shown.name}</span>
                        {meta.map(|meta| view! { <span class="artifact-meta">{meta}</span> })}
                    </div>
                    {download}
                    <button type="button" class="btn-icon btn-ghost close-artifact"
                        aria-label=t(Msg::Close) title=t(Msg::Close) on:click=move |_| close()>
                        {icon(Icon::Close)}
                    </button>
                </header>
                <div class="artifact-body">{body}</div>
            </div>
        })
    }
}

/// The document itself, as its kind is shown.
fn body(lang: Lang, artifact: Artifact) -> AnyView {
    let t = move |msg| i18n::text(lang, msg);
    match artifact.kind {
        ArtifactKind::Markdown => {
            let html =
                markdown::render(&artifact.content, Completeness::Complete, t(Msg::CopyCode));
            view! {
                <div class="md artifact-doc" inner_html=html
                    on:click=move |ev| on_code_copy_click(lang, ev)></div>
            }
            .into_any()
        }
        ArtifactKind::Html => {
            // Posted once the sandbox page is ready; it then becomes the document.
            let posted = StoredValue::new(false);
            let html = artifact.content;
            let on_load = move |event: web_sys::Event| {
                if posted.get_value() {
                    return;
                }
                posted.set_value(true);
                post_html(&event, &html);
            };
            view! {
                <p class="artifact-note">{t(Msg::ArtifactSandboxed)}</p>
                <iframe class="artifact-frame" src="viewer.html" sandbox="allow-scripts"
                    referrerpolicy="no-referrer" title=artifact.filename on:load=on_load></iframe>
            }
            .into_any()
        }
        ArtifactKind::Csv | ArtifactKind::Json | ArtifactKind::Code | ArtifactKind::Text => {
            view! { <pre class="artifact-text"><code>{artifact.content}</code></pre> }.into_any()
        }
    }
}

/// Hands the sandbox frame whose `load` this is the HTML it shows. The frame's origin is opaque,
/// so the message cannot be addressed to it by origin; it goes to that frame's window only.
fn post_html(event: &web_sys::Event, html: &str) {
    let frame = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlIFrameElement>().ok());
    let Some(window) = frame.and_then(|frame| frame.content_window()) else { return };
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"html".into(), &JsValue::from_str(html));
    if let Err(err) = window.post_message(&message, "*") {
        host::log_error(&format!("the artifact viewer did not take the document: {err:?}"));
    }
}

/// Saves `artifact` as a file, made in the page.
fn save_file(artifact: &Artifact) {
    let mime = download_mime(&artifact.filename, artifact.mime.as_deref());
    if let Err(err) = try_save(&artifact.filename, &mime, &artifact.content) {
        host::log_error(&format!("cannot save {}: {err:?}", artifact.filename));
    }
}

fn try_save(filename: &str, mime: &str, content: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or(JsValue::NULL)?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(filename);
    link.click();
    // The click started the download; the URL is not needed after this turn of the event loop.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 1_000);
    }
    Ok(())
}

/// The words for a kind of document.
fn kind_msg(kind: ArtifactKind) -> Msg {
    match kind {
        ArtifactKind::Markdown => Msg::ArtifactMarkdown,
        ArtifactKind::Html => Msg::ArtifactHtml,
        ArtifactKind::Csv => Msg::ArtifactCsv,
        ArtifactKind::Json => Msg::ArtifactJson,
        ArtifactKind::Code => Msg::ArtifactCode,
        ArtifactKind::Text => Msg::ArtifactText,
    }
}
