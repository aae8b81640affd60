//! The rows a long list draws, and the space that stands for the others.

use pretty_assertions::assert_eq;

use super::*;

fn keys(n: u32) -> Vec<u32> {
    (0..n).collect()
}

#[test]
fn a_window_follows_its_first_row_when_rows_come_before_or_after() {
    let window = Window::From(10, 5);
    assert_eq!(window.range(&keys(100)), 10..15);
    // Twenty earlier rows were put before the list: the same rows are drawn.
    let prepended: Vec<u32> = (1000..1020).chain(0..100).collect();
    assert_eq!(window.range(&prepended), 30..35);
    // A new row at the end changes nothing.
    assert_eq!(window.range(&keys(101)), 10..15);
    // Near the end, the window is cut at the last row.
    assert_eq!(Window::From(98, 5).range(&keys(100)), 98..100);
}

#[test]
fn the_tail_takes_new_rows_and_a_lost_first_row_falls_back_to_it() {
    assert_eq!(Window::<u32>::Tail(5).range(&keys(100)), 95..100);
    assert_eq!(Window::<u32>::Tail(5).range(&keys(101)), 96..101);
    assert_eq!(Window::<u32>::Tail(5).range(&keys(3)), 0..3);
    assert_eq!(Window::From(500, 5).range(&keys(100)), 95..100);
    assert_eq!(Window::<u32>::Tail(5).range(&[]), 0..0);
}

#[test]
fn unmeasured_rows_take_the_mean_of_the_measured_ones() {
    let mut rows = RowHeights::new(10.0);
    assert_eq!(rows.heights(&keys(2)), [DEFAULT_ROW_PX, DEFAULT_ROW_PX]);
    assert!(rows.record(&0, 40.0));
    assert!(rows.record(&1, 80.0));
    assert!(!rows.record(&1, 80.2), "under half a pixel is the same height");
    assert!(rows.record(&1, 90.0));
    assert_eq!(rows.heights(&keys(3)), [40.0, 90.0, 65.0]);
    // A row drawn empty counts as no space and does not lower the estimate.
    rows.record(&2, 0.0);
    assert_eq!(rows.heights(&keys(4)), [40.0, 90.0, 0.0, 65.0]);
    assert_eq!(rows.extent(&rows.heights(&keys(4))), 40.0 + 90.0 + 65.0 + 3.0 * 10.0);
    rows.retain(&[1]);
    assert_eq!(rows.heights(&keys(2)), [90.0, 90.0]);
}

#[test]
fn the_drawn_rows_cover_the_viewport_and_the_spacers_the_rest() {
    let rows: RowHeights<u32> = RowHeights::new(10.0);
    // Ten rows of 90 px: row i spans 100 i .. 100 i + 90.
    let heights = vec![90.0; 10];
    assert_eq!(rows.covering(&heights, 0.0, 250.0), 0..3);
    assert_eq!(rows.covering(&heights, 95.0, 250.0), 1..3, "the gap after row 0 is not row 0");
    assert_eq!(rows.covering(&heights, 89.0, 300.0), 0..3);
    assert_eq!(rows.covering(&heights, 350.0, 1000.0), 3..10);
    // Past the end, the last row; an empty list, nothing.
    assert_eq!(rows.covering(&heights, 5000.0, 6000.0), 9..10);
    assert_eq!(rows.covering(&[], 0.0, 100.0), 0..0);
    assert_eq!(rows.spacers(&heights, &(3..5)), (300.0, 500.0));
    assert_eq!(rows.spacers(&heights, &(0..10)), (0.0, 0.0));
    // The spacers and the drawn rows add up to the whole list.
    let (top, bottom) = rows.spacers(&heights, &(2..7));
    assert_eq!(top + rows.extent(&heights[2..7]) + bottom, rows.extent(&heights));
}
