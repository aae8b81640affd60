//! Tests of tool-call id repair.

use pretty_assertions::assert_eq;

use super::ToolCallIds;

#[test]
fn keeps_good_ids_and_repairs_empty_duplicate_taken_and_odd_ones() {
    let mut ids = ToolCallIds::new("t1_").with_taken(["call_old".to_owned(), "t1_0".to_owned()]);
    let got: Vec<String> = ["call_a", "", "call_a", "call_old", "has space", &"x".repeat(65)]
        .iter()
        .map(|id| ids.assign(id))
        .collect();
    assert_eq!(got, ["call_a", "t1_1", "t1_2", "t1_3", "t1_4", "t1_5"]);
}

#[test]
fn a_provider_id_equal_to_a_generated_one_is_repaired() {
    let mut ids = ToolCallIds::new("p");
    assert_eq!(ids.assign(""), "p0");
    assert_eq!(ids.assign("p0"), "p1");
}
