//! The open thread: its title, the message stream with the cards the engine asks for, and the
//! composer.

use leptos::prelude::*;

use super::artifact::ArtifactViewer;
use super::composer::Composer;
use super::message_stream::MessageStream;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::thread_view::ThreadView;

/// The open thread: the message stream, cards the engine asks for, and the composer.
#[component]
pub(crate) fn ThreadPane() -> impl IntoView {
    let open = use_open_thread();
    let page = use_page();
    let t = move |msg| i18n::text(page.lang.get(), msg);
    let cost = move || open.view.with(|v| v.as_ref().and_then(ThreadView::cost_usd));
    let awaiting_approval =
        move || open.view.with(|v| v.as_ref().is_some_and(|v| !v.approvals.is_empty()));
    view! {
        <section class="thread-pane">
            <h2 class="thread-title">
                <span class="title-text">
                    {move || open.view.with(|v| v.as_ref().and_then(|v| v.meta.as_ref().map(|m| m.title.clone())))}
                </span>
                {move || cost().map(|cost| view! {
                    <span class="thread-cost" title=t(Msg::ThreadCost)>{format!("${cost:.4}")}</span>
                })}
            </h2>
            <MessageStream/>
            // A pending approval takes the composer's place, so its Y/S/A/N/Esc keys are never
            // typed into the text box.
            <Show when=move || !awaiting_approval()>
                <Composer/>
            </Show>
            <ArtifactViewer/>
        </section>
    }
}
