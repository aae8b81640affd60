//! Which rows of a long list are drawn: those near the viewport. The rows above and below are
//! space of their height, measured once a row was drawn and estimated before (the mean of the
//! rows measured so far), so the scroll bar stays about right and the page lays out a screenful
//! of rows whatever the list's length.
//!
//! The list's coordinates run from its top: row `i` starts at the sum of the heights of the rows
//! before it, each followed by the gap between rows.

use std::collections::BTreeMap;
use std::ops::Range;

/// Height assumed for a row before any row was measured, in CSS pixels.
pub const DEFAULT_ROW_PX: f64 = 96.0;

/// The rows drawn, by key so that rows added before or after them do not move the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window<K> {
    /// The last `n` rows: the list follows its end, so a new row joins the window.
    Tail(usize),
    /// `n` rows from the row with this key.
    From(K, usize),
}

impl<K: PartialEq> Window<K> {
    /// The indices of the drawn rows among `keys`. A window whose first row left the list (the
    /// list was replaced) becomes the tail of the same length.
    pub fn range(&self, keys: &[K]) -> Range<usize> {
        let (start, n) = match self {
            Window::Tail(n) => (keys.len().saturating_sub(*n), *n),
            Window::From(first, n) => match keys.iter().position(|k| k == first) {
                Some(start) => (start, *n),
                None => (keys.len().saturating_sub(*n), *n),
            },
        };
        start..start.saturating_add(n).min(keys.len())
    }
}

/// The heights of a list's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct RowHeights<K> {
    measured: BTreeMap<K, f64>,
    /// Space between two rows.
    gap: f64,
}

impl<K: Ord + Clone> RowHeights<K> {
    /// No row measured yet.
    pub fn new(gap: f64) -> RowHeights<K> {
        RowHeights { measured: BTreeMap::new(), gap }
    }

    /// The space between two rows.
    pub fn gap(&self) -> f64 {
        self.gap
    }

    /// Sets the space between two rows; returns whether it changed.
    pub fn set_gap(&mut self, gap: f64) -> bool {
        let changed = (self.gap - gap).abs() >= 0.5;
        self.gap = gap;
        changed
    }

    /// Records the height a drawn row has; returns whether it differs from what was assumed
    /// (half a pixel or more).
    pub fn record(&mut self, key: &K, height: f64) -> bool {
        let before = self.measured.insert(key.clone(), height);
        before.is_none_or(|h| (h - height).abs() >= 0.5)
    }

    /// Forgets the rows that are no longer in the list.
    pub fn retain(&mut self, keys: &[K]) {
        if self.measured.len() > keys.len() {
            let kept: std::collections::BTreeSet<&K> = keys.iter().collect();
            self.measured.retain(|k, _| kept.contains(k));
        }
    }

    /// The height assumed for a row not measured yet: the mean of those measured.
    pub fn estimate(&self) -> f64 {
        let shown: Vec<f64> = self.measured.values().copied().filter(|h| *h > 0.0).collect();
        if shown.is_empty() {
            DEFAULT_ROW_PX
        } else {
            shown.iter().sum::<f64>() / shown.len() as f64
        }
    }

    /// The height of each row of `keys`, measured or estimated. A row measured at zero height
    /// draws nothing and takes no gap.
    pub fn heights(&self, keys: &[K]) -> Vec<f64> {
        let estimate = self.estimate();
        keys.iter().map(|k| self.measured.get(k).copied().unwrap_or(estimate)).collect()
    }

    /// The space the rows `heights` take, each with its gap.
    pub fn extent(&self, heights: &[f64]) -> f64 {
        heights.iter().filter(|h| **h > 0.0).map(|h| h + self.gap).sum()
    }

    /// The rows to draw so that `from..to` (list coordinates) is covered: every row that
    /// intersects it, and at least one row of a list that has any.
    pub fn covering(&self, heights: &[f64], from: f64, to: f64) -> Range<usize> {
        let mut top = 0.0;
        let mut start = None;
        let mut end = heights.len();
        for (i, h) in heights.iter().enumerate() {
            let step = if *h > 0.0 { h + self.gap } else { 0.0 };
            if start.is_none() && top + h > from {
                start = Some(i);
            }
            if top >= to && *h > 0.0 {
                end = i;
                break;
            }
            top += step;
        }
        let start = start.unwrap_or(heights.len().saturating_sub(1));
        start..end.max(start + 1).min(heights.len())
    }

    /// The space before and after the drawn rows `range` of a list with these row heights.
    pub fn spacers(&self, heights: &[f64], range: &Range<usize>) -> (f64, f64) {
        let start = range.start.min(heights.len());
        let end = range.end.clamp(start, heights.len());
        (self.extent(&heights[..start]), self.extent(&heights[end..]))
    }
}

#[cfg(test)]
#[path = "list_window_tests.rs"]
mod tests;
