//! Thread trees from their links: paths, branches, default leaves and repairs, with property
//! tests over random trees.

use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

fn id(n: u64) -> NodeId {
    NodeId::new(format!("n{n}")).unwrap()
}

fn link(n: u64, parent: Option<u64>) -> NodeLink {
    NodeLink { id: id(n), parent_id: parent.map(id), seq: n }
}

/// n1 ─ n2 ─ n3
///    └ n4 ─ n5
///         └ n6
fn sample() -> ThreadTree {
    ThreadTree::from_links([
        link(1, None),
        link(2, Some(1)),
        link(3, Some(2)),
        link(4, Some(1)),
        link(5, Some(4)),
        link(6, Some(4)),
    ])
}

#[test]
fn paths_positions_and_default_leaves() {
    let tree = sample();
    assert_eq!(tree.path_to(&id(5)).unwrap(), vec![id(1), id(4), id(5)]);
    let at = |index, count, previous: Option<u64>, next: Option<u64>| BranchPosition {
        index,
        count,
        previous: previous.map(id),
        next: next.map(id),
    };
    assert_eq!(tree.branch_position(&id(2)).unwrap(), at(1, 2, None, Some(4)));
    assert_eq!(tree.branch_position(&id(4)).unwrap(), at(2, 2, Some(2), None));
    assert_eq!(tree.branch_position(&id(1)).unwrap(), BranchPosition::only());
    assert_eq!(tree.default_leaf_under(&id(1)).unwrap(), id(6));
    assert_eq!(tree.default_leaf_under(&id(2)).unwrap(), id(3));
    assert_eq!(tree.next_seq(), 7);
    assert_eq!(tree.path_to(&id(9)), Err(TreeError::UnknownNode(id(9))));
}

#[test]
fn a_broken_leaf_falls_back_to_the_highest_rooted_leaf() {
    let tree = sample();
    assert_eq!(tree.validate_leaf(Some(&id(3))), LeafCheck::Valid(id(3)));
    let LeafCheck::Repaired { leaf, reason } = tree.validate_leaf(Some(&id(42))) else { panic!() };
    assert_eq!(leaf, id(6));
    assert!(reason.contains("n42"), "{reason}");
    assert!(matches!(tree.validate_leaf(None), LeafCheck::Repaired { .. }));
    assert_eq!(ThreadTree::default().validate_leaf(None), LeafCheck::Empty);
}

#[test]
fn corrupt_cycles_and_orphans_terminate() {
    // n2 ↔ n3 point at each other (only possible through corrupt data); n7's parent is missing.
    let tree = ThreadTree::from_links([
        link(1, None),
        NodeLink { id: id(2), parent_id: Some(id(3)), seq: 2 },
        NodeLink { id: id(3), parent_id: Some(id(2)), seq: 3 },
        link(7, Some(99)),
    ]);
    assert_eq!(tree.path_to(&id(3)), Err(TreeError::Unrooted(id(3))));
    assert_eq!(tree.path_to(&id(7)), Err(TreeError::Unrooted(id(7))));
    assert!(tree.default_leaf_under(&id(2)).is_err());
    assert_eq!(
        tree.validate_leaf(Some(&id(7))),
        LeafCheck::Repaired { leaf: id(1), reason: "node n7 does not reach a root".into() }
    );
}

proptest! {
    /// Random append-only trees: every path reaches a root through parents, positions count
    /// siblings exactly, and the default leaf has no children.
    #[test]
    fn random_trees_hold_their_invariants(parents in prop::collection::vec(any::<prop::sample::Index>(), 1..80)) {
        let links: Vec<NodeLink> = parents.iter().enumerate().map(|(i, pick)| {
            let n = i as u64 + 1;
            // Node n's parent is one of the earlier nodes, or none (a new root) for index 0.
            let parent = if n == 1 { None } else { Some(pick.index(n as usize - 1) as u64 + 1) };
            link(n, parent.filter(|p| *p < n))
        }).collect();
        let tree = ThreadTree::from_links(links.clone());
        for l in &links {
            let path = tree.path_to(&l.id).unwrap();
            prop_assert_eq!(path.last(), Some(&l.id));
            prop_assert_eq!(tree.parent(&path[0]).unwrap(), None);
            for pair in path.windows(2) {
                prop_assert_eq!(tree.parent(&pair[1]).unwrap(), Some(&pair[0]));
            }
            let pos = tree.branch_position(&l.id).unwrap();
            let siblings = links.iter().filter(|o| o.parent_id == l.parent_id).count() as u32;
            prop_assert_eq!(pos.count, siblings);
            let leaf = tree.default_leaf_under(&l.id).unwrap();
            prop_assert!(tree.children(Some(&leaf)).is_empty());
        }
    }
}
