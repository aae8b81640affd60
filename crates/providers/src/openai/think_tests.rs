//! Tests of the `<think>` splitter.

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::Channel;
use super::ThinkSplitter;

/// Runs the splitter over chunks and returns (text, reasoning).
fn split(chunks: &[&str]) -> (String, String) {
    let mut splitter = ThinkSplitter::new();
    let (mut text, mut reasoning) = (String::new(), String::new());
    let mut emit = |channel: Channel, piece: &str| match channel {
        Channel::Text => text.push_str(piece),
        Channel::Reasoning => reasoning.push_str(piece),
    };
    for chunk in chunks {
        splitter.push(chunk, &mut emit);
    }
    splitter.flush(&mut emit);
    (text, reasoning)
}

#[test]
fn whole_block() {
    assert_eq!(split(&["<think>hmm</think>\n\nHello"]), ("Hello".to_owned(), "hmm".to_owned()));
}

#[test]
fn tags_split_across_chunks() {
    assert_eq!(
        split(&["<th", "ink>a", "b</", "thi", "nk>", "\n", "ok"]),
        ("ok".to_owned(), "ab".to_owned())
    );
}

#[test]
fn text_that_only_looks_like_a_tag_start_is_kept() {
    assert_eq!(split(&["a <", "b"]), ("a <b".to_owned(), String::new()));
    assert_eq!(split(&["x <thin"]), ("x <thin".to_owned(), String::new()));
}

#[test]
fn unclosed_think_is_all_reasoning() {
    assert_eq!(split(&["<think>still going</thi"]), (String::new(), "still going</thi".to_owned()));
}

#[test]
fn no_tags_passes_text_through() {
    assert_eq!(split(&["plain ", "text"]), ("plain text".to_owned(), String::new()));
}

proptest! {
    #[test]
    fn any_chunking_splits_the_same(cuts in proptest::collection::vec(0usize..40, 0..6)) {
        let body = "<think>step 1 < 2</think>\n\nanswer <b>x</b> <think>more</think> end";
        let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= body.len()).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut last = 0;
        for cut in cuts {
            chunks.push(&body[last..cut]);
            last = cut;
        }
        chunks.push(&body[last..]);
        prop_assert_eq!(split(&chunks), split(&[body]));
        prop_assert_eq!(split(&[body]), ("answer <b>x</b> end".to_owned(), "step 1 < 2more".to_owned()));
    }
}
