//! The message stream's rows, drawn near the viewport only: a long thread lays out a screenful
//! or two of rows, not hundreds. The rows above and below the drawn ones are padding of their
//! height (measured once drawn, else estimated: `state::list_window`).
//!
//! Scrolling keeps what the person looks at in place: the first visible row is the anchor, and
//! after rows are drawn, measured or put before the list (earlier messages), the scroll position
//! moves by as much as the anchor did. The stream sets `overflow-anchor: none`, so the browser's
//! own scroll anchoring (which does nothing at the very top) never adds a second correction. At
//! the end of the list the stream follows new output instead, as long as the person stays there.
//!
//! Each pass ([`VirtualList::settle`]) reads the layout once the page shows the rows of the
//! current window: measures them, sets the padding for the others, moves the scroll position back
//! to the anchor (all before the page paints again), then picks the
//! rows that cover the viewport and a margin; when that changes the rows, the next pass runs
//! after they are in the page (in the same frame, before it is painted).

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

use crate::state::list_window::RowHeights;
use crate::state::list_window::Window;
use crate::state::thread_view::EntryKey;

/// Rows drawn beyond each edge of the viewport, in viewport heights.
const MARGIN: f64 = 0.75;
/// Distance from the end, in CSS pixels, within which the stream follows new output.
const FOLLOW_PX: i32 = 40;
/// Rows drawn before anything is measured: about a screenful.
const FIRST_ROWS: usize = 12;
/// Passes in a row before the list waits for the next scroll or change (the rows' heights and
/// the estimate settle in two or three).
const MAX_PASSES: u32 = 8;
/// Space between two rows until two drawn rows show it.
const DEFAULT_GAP_PX: f64 = 12.0;

/// The drawn part of a list of rows, and what it needs to keep it right.
#[derive(Clone, Copy)]
pub(crate) struct VirtualList {
    keys: Memo<Vec<EntryKey>>,
    /// The scrolling element (the stream).
    scroller: NodeRef<Div>,
    /// The element holding the drawn rows, padded for the others.
    rows: NodeRef<Div>,
    window: RwSignal<Window<EntryKey>>,
    heights: StoredValue<RowHeights<EntryKey>>,
    /// Whether the list follows its end.
    follow: StoredValue<bool>,
    /// The first visible row and its distance from the viewport's top.
    anchor: StoredValue<Option<(EntryKey, i32)>>,
    /// The scroll position the anchor was taken at or last restored to: another means the
    /// person scrolled since.
    anchor_at: StoredValue<i32>,
    /// Passes run since the last scroll or change.
    passes: StoredValue<u32>,
    /// A pass is already waiting for the next frame.
    frame_queued: StoredValue<bool>,
    /// Called when the first row is drawn near the viewport.
    on_top: Callback<()>,
}

impl VirtualList {
    /// A list of `keys` scrolled by `scroller`; `on_top` asks for earlier rows.
    pub(crate) fn new(
        keys: Memo<Vec<EntryKey>>,
        scroller: NodeRef<Div>,
        on_top: Callback<()>,
    ) -> VirtualList {
        let list = VirtualList {
            keys,
            scroller,
            rows: NodeRef::new(),
            window: RwSignal::new(Window::Tail(FIRST_ROWS)),
            heights: StoredValue::new(RowHeights::new(DEFAULT_GAP_PX)),
            follow: StoredValue::new(true),
            anchor: StoredValue::new(None),
            anchor_at: StoredValue::new(0),
            passes: StoredValue::new(0),
            frame_queued: StoredValue::new(false),
            on_top,
        };
        let resize = window_event_listener(leptos::ev::resize, move |_| list.changed());
        on_cleanup(move || resize.remove());
        list
    }

    /// The drawn rows, each in a `.row` wrapper named by its key (`data-key`), in a `.rows`
    /// element padded for the others.
    pub(crate) fn view(
        self,
        row: impl Fn(EntryKey) -> AnyView + Clone + Send + Sync + 'static,
    ) -> impl IntoView {
        let drawn = Memo::new(move |_| {
            self.keys.with(|keys| keys[self.window.with(|w| w.range(keys))].to_vec())
        });
        // The padding is written by each pass (`settle`), with the scroll position that goes
        // with it, so that the page never paints one without the other.
        view! {
            <div class="rows" node_ref=self.rows>
                <For each=move || drawn.get() key=|key| key.clone() children=move |key| {
                    let name = key.text();
                    view! { <div class="row" data-key=name>{row(key)}</div> }
                }/>
            </div>
        }
    }

    /// Another list (another thread) takes the place of this one: it opens at its end.
    pub(crate) fn reset(self) {
        self.follow.set_value(true);
        self.anchor.set_value(None);
        self.window.set(Window::Tail(FIRST_ROWS));
    }

    /// The list or its rows changed: a pass once the page shows them.
    pub(crate) fn changed(self) {
        self.passes.set_value(0);
        self.after_render();
    }

    /// The person scrolled (or a pass did): remember what they look at, then a pass in the next
    /// frame.
    pub(crate) fn scrolled(self) {
        if let Some(scroller) = self.scroller.get_untracked() {
            self.note_position(&scroller);
        }
        self.passes.set_value(0);
        self.next_frame();
    }

    /// Where the person is: at the end (followed) or looking at the anchor.
    fn note_position(self, scroller: &HtmlElement) {
        let gap = scroller.scroll_height() - scroller.scroll_top() - scroller.client_height();
        self.follow.set_value(gap < FOLLOW_PX);
        self.anchor.set_value(self.visible_row(scroller));
        self.anchor_at.set_value(scroller.scroll_top());
    }

    /// A pass after the page took the latest change: tasks run in order, and the rows' own
    /// updates were queued when the change was made, before this one.
    fn after_render(self) {
        leptos::task::spawn_local(async move { self.settle() });
    }

    fn next_frame(self) {
        if self.frame_queued.get_value() {
            return;
        }
        self.frame_queued.set_value(true);
        request_animation_frame(move || {
            self.frame_queued.set_value(false);
            self.settle();
        });
    }

    /// The drawn row elements, with their keys, if the page shows the current window (the same
    /// keys in the same order: a window of as many other rows is not it yet).
    fn drawn_rows(self, rows: &HtmlElement) -> Option<Vec<(EntryKey, HtmlElement)>> {
        let keys = self
            .keys
            .with_untracked(|keys| keys[self.window.with_untracked(|w| w.range(keys))].to_vec());
        let mut drawn = Vec::with_capacity(keys.len());
        let mut child = rows.first_element_child();
        for key in keys {
            let element = child?;
            if element.get_attribute("data-key").as_deref() != Some(key.text().as_str()) {
                return None;
            }
            child = element.next_element_sibling();
            drawn.push((key, element.unchecked_into::<HtmlElement>()));
        }
        child.is_none().then_some(drawn)
    }

    /// The first drawn row whose bottom is in the viewport, and its distance from its top.
    fn visible_row(self, scroller: &HtmlElement) -> Option<(EntryKey, i32)> {
        let rows = self.rows.get_untracked()?;
        let top = scroller.scroll_top();
        self.drawn_rows(&rows)?.into_iter().find_map(|(key, row)| {
            let bottom = row.offset_top() + row.offset_height();
            (row.offset_height() > 0 && bottom > top).then(|| (key, row.offset_top() - top))
        })
    }

    /// One pass: measure, restore the anchor (or follow the end), then draw the rows the
    /// viewport needs.
    fn settle(self) {
        let (Some(scroller), Some(rows)) =
            (self.scroller.get_untracked(), self.rows.get_untracked())
        else {
            return;
        };
        let (scroller, rows): (HtmlElement, HtmlElement) = (scroller.into(), rows.into());
        let passes = self.passes.get_value() + 1;
        self.passes.set_value(passes);
        let Some(drawn) = self.drawn_rows(&rows) else {
            // The page does not show the window yet: look again in the next frame.
            if passes < MAX_PASSES {
                self.next_frame();
            }
            return;
        };
        // Scrolled since the scroll event (a script's scroll in this frame): before the layout
        // changes below, note what the person looks at now, not what they looked at then.
        if scroller.scroll_top() != self.anchor_at.get_value() {
            self.note_position(&scroller);
        }

        self.heights.update_value(|heights| {
            for (key, row) in &drawn {
                heights.record(key, f64::from(row.offset_height()));
            }
            let shown: Vec<&HtmlElement> =
                drawn.iter().map(|(_, row)| row).filter(|row| row.offset_height() > 0).collect();
            if let [first, second, ..] = shown[..] {
                let gap = second.offset_top() - first.offset_top() - first.offset_height();
                heights.set_gap(f64::from(gap.max(0)));
            }
        });
        // The space of the rows not drawn, from the heights just measured: written here rather
        // than through a signal, so that the anchor below is restored against the layout the
        // page paints (a signal's update would come after this pass).
        let (above, below) = self.keys.with_untracked(|keys| {
            let range = self.window.with_untracked(|w| w.range(keys));
            self.heights.with_value(|h| h.spacers(&h.heights(keys), &range))
        });
        let padding =
            format!("padding-top: {}px; padding-bottom: {}px", above.round(), below.round());
        if rows.get_attribute("style").as_deref() != Some(padding.as_str()) {
            let _ = rows.set_attribute("style", &padding);
        }

        // The rows looked at left the list (another branch of the thread is shown): keep the
        // scroll position and draw what is there now. Another thread starts at its end
        // (`reset`).
        let lost = self.keys.with_untracked(|keys| {
            let anchor_gone =
                self.anchor.with_value(|a| a.as_ref().is_some_and(|(k, _)| !keys.contains(k)));
            let window_gone = self
                .window
                .with_untracked(|w| matches!(w, Window::From(k, _) if !keys.contains(k)));
            anchor_gone || window_gone
        });
        if lost {
            self.anchor.set_value(None);
        }
        let follow = self.follow.get_value();
        if follow {
            scroller.set_scroll_top(scroller.scroll_height());
        } else {
            if self.anchor.with_value(Option::is_none) {
                self.anchor.set_value(self.visible_row(&scroller));
            }
            let anchor = self.anchor.get_value();
            let moved = anchor.and_then(|(key, offset)| {
                let (_, row) = drawn.iter().find(|(k, _)| *k == key)?;
                Some(row.offset_top() - scroller.scroll_top() - offset)
            });
            if let Some(moved) = moved.filter(|m| *m != 0) {
                scroller.set_scroll_top(scroller.scroll_top() + moved);
            }
        }
        self.anchor_at.set_value(scroller.scroll_top());

        let viewport = f64::from(scroller.client_height());
        let view_top = f64::from(scroller.scroll_top() - rows.offset_top());
        let margin = viewport * MARGIN;
        let wanted = self.keys.with_untracked(|keys| {
            let heights = self.heights.with_value(|h| h.heights(keys));
            let cover = self.heights.with_value(|h| {
                h.covering(&heights, view_top - margin, view_top + viewport + margin)
            });
            match keys.get(cover.start) {
                Some(_) if follow => Window::Tail(keys.len() - cover.start),
                Some(first) => Window::From(first.clone(), cover.len()),
                None => Window::Tail(FIRST_ROWS),
            }
        });
        if self.window.with_untracked(|w| *w != wanted) {
            if passes < MAX_PASSES {
                self.window.set(wanted);
                self.after_render();
            }
            return;
        }

        self.anchor.set_value(self.visible_row(&scroller));
        self.anchor_at.set_value(scroller.scroll_top());
        let first_drawn = self.keys.with_untracked(|keys| {
            self.window.with_untracked(|w| w.range(keys).start == 0 && !keys.is_empty())
        });
        if first_drawn && view_top < margin {
            self.on_top.run(());
        }
    }
}
