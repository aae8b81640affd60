//! What a screenshot covers and what it costs: the clip of an element or of the whole page in
//! the document's coordinates (`Page.captureScreenshot` with `captureBeyondViewport`), and the
//! input tokens an image costs a vision model.

use panelot_protocol::content::LABELS_MAX;
use panelot_protocol::content::LabelsResult;
use panelot_protocol::content::RectResult;
use serde_json::Value;
use serde_json::json;

use super::Shot;

/// The tallest (and widest) full-page or element screenshot, in CSS pixels: beyond it a vision
/// model scales the image down until its text is unreadable, so the rest is cut and said.
pub(crate) const FULL_PAGE_MAX_PX: f64 = 8_192.0;

/// The `clip` of `shot` and what it shows in words, from `Page.getLayoutMetrics` (`rect`: the
/// element's viewport box, for an element). `None` of the viewport (no clip).
pub(crate) fn shot_clip(
    shot: &Shot,
    rect: Option<&RectResult>,
    metrics: &Value,
) -> Result<(Value, String), String> {
    let number = |section: &str, field: &str| metrics.get(section)?.get(field)?.as_f64();
    match shot {
        Shot::Viewport { .. } => Err("the viewport needs no clip".to_owned()),
        Shot::Element(element_ref) => {
            let Some(rect) = rect.filter(|r| r.width >= 1.0 && r.height >= 1.0) else {
                return Err(format!("{element_ref} has no size to show"));
            };
            // The box is the viewport's; the clip is the document's.
            let page_x = number("cssVisualViewport", "pageX").unwrap_or(0.0);
            let page_y = number("cssVisualViewport", "pageY").unwrap_or(0.0);
            let (width, height) =
                (rect.width.min(FULL_PAGE_MAX_PX), rect.height.min(FULL_PAGE_MAX_PX));
            let cut = if width < rect.width || height < rect.height { ", cut" } else { "" };
            let clip = json!({"x": (rect.x + page_x).max(0.0), "y": (rect.y + page_y).max(0.0),
                "width": width, "height": height, "scale": 1});
            Ok((clip, format!("{element_ref}{cut}")))
        }
        Shot::FullPage { .. } => {
            let width =
                number("cssContentSize", "width").or_else(|| number("contentSize", "width"));
            let height =
                number("cssContentSize", "height").or_else(|| number("contentSize", "height"));
            let (Some(width), Some(height)) = (width, height) else {
                return Err("the page's size is unknown".to_owned());
            };
            let (shown_w, shown_h) = (width.min(FULL_PAGE_MAX_PX), height.min(FULL_PAGE_MAX_PX));
            let clip = json!({"x": 0, "y": 0, "width": shown_w.max(1.0), "height": shown_h.max(1.0),
                "scale": 1});
            let what = if shown_h < height || shown_w < width {
                format!(
                    "the top {} px of the page (it is {} px tall; scroll and take another for \
                     the rest)",
                    shown_h.round() as i64,
                    height.round() as i64
                )
            } else {
                "the whole page".to_owned()
            };
            Ok((clip, what))
        }
    }
}

/// What the model is told of the ref labels drawn for a screenshot.
pub(crate) fn labels_note(drawn: &LabelsResult) -> String {
    match drawn.drawn {
        0 => "\nNo element of this page has a ref yet, so nothing is labelled: call read_page, \
              then take the screenshot again."
            .to_owned(),
        n => {
            let more = if n >= LABELS_MAX { " (the first ones only)" } else { "" };
            format!(
                "\nPanelot outlined {n} elements with refs{more} and wrote each ref above its \
                 element ({} of them in view); the labels are Panelot's, not the page's.",
                drawn.in_viewport
            )
        }
    }
}

/// What an image of `width`×`height` px costs a vision model in input tokens, by Anthropic's
/// published rule (the larger of the two common ones): scaled to at most 1568 px on its long
/// side and about 1.15 megapixels, then one token per 750 px.
pub(crate) fn image_tokens(width: u32, height: u32) -> u32 {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let scale = (1568.0 / w.max(h)).min((1_150_000.0 / (w * h)).sqrt()).min(1.0);
    ((w * scale) * (h * scale) / 750.0).ceil() as u32
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn rect(x: f64, y: f64, width: f64, height: f64) -> RectResult {
        RectResult { x, y, width, height, in_viewport: true }
    }

    #[test]
    fn an_element_is_clipped_in_document_coordinates_and_a_tall_page_is_cut_and_said() {
        let metrics = json!({"cssVisualViewport": {"pageX": 0.0, "pageY": 900.0},
            "cssContentSize": {"width": 1280.0, "height": 20_000.0}});
        let element = Shot::Element("e7".into());
        let (clip, what) =
            shot_clip(&element, Some(&rect(10.0, 20.0, 300.0, 40.0)), &metrics).unwrap();
        assert_eq!(
            clip,
            json!({"x": 10.0, "y": 920.0, "width": 300.0, "height": 40.0, "scale": 1})
        );
        assert_eq!(what, "e7");
        let nothing = shot_clip(&element, Some(&rect(0.0, 0.0, 0.0, 10.0)), &metrics);
        assert_eq!(nothing.unwrap_err(), "e7 has no size to show");

        let whole = Shot::FullPage { labels: false };
        let (clip, what) = shot_clip(&whole, None, &metrics).unwrap();
        assert_eq!(clip["height"], FULL_PAGE_MAX_PX);
        assert!(what.starts_with("the top 8192 px of the page (it is 20000 px tall"), "{what}");
        let short = json!({"contentSize": {"width": 800.0, "height": 600.0}});
        let (clip, what) = shot_clip(&whole, None, &short).unwrap();
        assert_eq!((clip["width"].clone(), what.as_str()), (json!(800.0), "the whole page"));
        assert!(shot_clip(&whole, None, &json!({})).is_err());
    }

    #[test]
    fn the_labels_note_says_how_many_and_whose_they_are() {
        let none = labels_note(&LabelsResult { drawn: 0, in_viewport: 0 });
        assert!(none.contains("call read_page, then take the screenshot again"), "{none}");
        let some = labels_note(&LabelsResult { drawn: 12, in_viewport: 7 });
        assert!(some.contains("outlined 12 elements with refs and wrote"), "{some}");
        assert!(some.contains("(7 of them in view); the labels are Panelot's"), "{some}");
        let cut = labels_note(&LabelsResult { drawn: LABELS_MAX, in_viewport: 40 });
        assert!(cut.contains("(the first ones only)"), "{cut}");
    }

    #[test]
    fn image_tokens_follow_the_scaling_rule() {
        // 1280×720 needs no scaling: 921,600 px / 750.
        assert_eq!(image_tokens(1280, 720), 1229);
        // 4000×3000 is scaled to 1.15 MP.
        assert_eq!(image_tokens(4000, 3000), 1534);
        // 1000×8000 is scaled to 1568 px tall.
        assert_eq!(image_tokens(1000, 8000), 410);
    }
}
