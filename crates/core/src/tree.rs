//! The shape of a thread: an append-only tree of nodes with a leaf cursor.
//!
//! [`ThreadTree`] is built from one range read of the thread's links ([`Store::tree_links`]) and
//! answers every structural question in memory: the path to a leaf, the position of a node among
//! its siblings (for the ‹n/m› switcher, all from the same read, never a query per message), the
//! deepest default descendant (highest seq at each level) for a branch switch, and whether a
//! stored leaf still reaches a root. Every walk is capped by the node count, so even corrupt
//! data (a cycle written by hand) cannot loop.
//!
//! [`Store::tree_links`]: crate::store::Store::tree_links

use std::collections::BTreeMap;

use panelot_protocol::NodeId;
use panelot_protocol::engine::BranchPosition;

use crate::sort::sort_by_u64_key;
use crate::store::NodeLink;

/// What is wrong with a tree walk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// The node is not in this thread.
    #[error("node {0} is not in this thread")]
    UnknownNode(NodeId),
    /// Walking up from the node does not reach a root within the node count.
    #[error("node {0} does not reach a root")]
    Unrooted(NodeId),
}

#[derive(Debug, Clone)]
struct TreeNode {
    parent: Option<NodeId>,
    seq: u64,
}

/// The tree of one thread.
#[derive(Debug, Clone, Default)]
pub struct ThreadTree {
    nodes: BTreeMap<NodeId, TreeNode>,
    /// Children of each parent (`None`: the roots), in seq order.
    children: BTreeMap<Option<NodeId>, Vec<NodeId>>,
    max_seq: Option<u64>,
}

/// The outcome of checking a stored leaf cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeafCheck {
    /// The thread has no nodes.
    Empty,
    /// The cursor is valid.
    Valid(NodeId),
    /// The cursor was missing or broken; this leaf replaces it and a notice should say so.
    Repaired {
        /// The replacement: the highest-seq leaf that reaches a root.
        leaf: NodeId,
        /// Why the stored cursor was refused.
        reason: String,
    },
}

impl ThreadTree {
    /// Builds the tree from links in any order.
    pub fn from_links(links: impl IntoIterator<Item = NodeLink>) -> Self {
        let mut links: Vec<NodeLink> = links.into_iter().collect();
        sort_by_u64_key(&mut links, |link| link.seq);
        let mut tree = ThreadTree::default();
        for link in links {
            tree.insert(link);
        }
        tree
    }

    /// Adds a node appended after the tree was built (its seq is the highest).
    pub fn insert(&mut self, link: NodeLink) {
        self.max_seq = Some(self.max_seq.map_or(link.seq, |max| max.max(link.seq)));
        let siblings = self.children.entry(link.parent_id.clone()).or_default();
        // Appends arrive in seq order; keep the order even if one does not.
        let at = siblings
            .iter()
            .position(|id| self.nodes.get(id).is_some_and(|e| e.seq > link.seq))
            .unwrap_or(siblings.len());
        siblings.insert(at, link.id.clone());
        self.nodes.insert(link.id, TreeNode { parent: link.parent_id, seq: link.seq });
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the thread has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The next seq to append with.
    pub fn next_seq(&self) -> u64 {
        self.max_seq.map_or(1, |max| max + 1)
    }

    /// Whether the node is in the tree.
    pub fn contains(&self, id: &NodeId) -> bool {
        self.nodes.contains_key(id)
    }

    /// The node's seq.
    pub fn seq(&self, id: &NodeId) -> Option<u64> {
        self.nodes.get(id).map(|e| e.seq)
    }

    /// The node's parent.
    pub fn parent(&self, id: &NodeId) -> Result<Option<&NodeId>, TreeError> {
        self.nodes
            .get(id)
            .map(|e| e.parent.as_ref())
            .ok_or_else(|| TreeError::UnknownNode(id.clone()))
    }

    /// Children of a node (`None`: the roots), in seq order.
    pub fn children(&self, parent: Option<&NodeId>) -> &[NodeId] {
        self.children.get(&parent.cloned()).map(Vec::as_slice).unwrap_or_default()
    }

    /// The path from the root to `leaf`, inclusive.
    pub fn path_to(&self, leaf: &NodeId) -> Result<Vec<NodeId>, TreeError> {
        let mut path = Vec::new();
        let mut cursor = Some(leaf.clone());
        while let Some(id) = cursor {
            if path.len() > self.nodes.len() {
                return Err(TreeError::Unrooted(leaf.clone()));
            }
            let entry = self.nodes.get(&id).ok_or_else(|| match path.is_empty() {
                true => TreeError::UnknownNode(id.clone()),
                false => TreeError::Unrooted(leaf.clone()),
            })?;
            cursor = entry.parent.clone();
            path.push(id);
        }
        path.reverse();
        Ok(path)
    }

    /// The 1-based position of a node among its siblings, by seq.
    pub fn branch_position(&self, id: &NodeId) -> Result<BranchPosition, TreeError> {
        let parent = self.parent(id)?;
        let siblings = self.children(parent);
        let index = siblings.iter().position(|s| s == id).unwrap_or(0);
        Ok(BranchPosition {
            index: index as u32 + 1,
            count: siblings.len() as u32,
            previous: index.checked_sub(1).and_then(|i| siblings.get(i)).cloned(),
            next: siblings.get(index + 1).cloned(),
        })
    }

    /// The deepest default descendant of `id`: follow the highest-seq child at each level.
    pub fn default_leaf_under(&self, id: &NodeId) -> Result<NodeId, TreeError> {
        if !self.contains(id) {
            return Err(TreeError::UnknownNode(id.clone()));
        }
        let mut cursor = id.clone();
        for _ in 0..self.nodes.len() {
            match self.children(Some(&cursor)).last() {
                Some(child) => cursor = child.clone(),
                None => return Ok(cursor),
            }
        }
        Err(TreeError::Unrooted(id.clone()))
    }

    /// Checks a stored leaf cursor: it must name a node whose walk reaches a root. Otherwise the
    /// highest-seq leaf that reaches a root replaces it.
    pub fn validate_leaf(&self, leaf: Option<&NodeId>) -> LeafCheck {
        if self.is_empty() {
            return LeafCheck::Empty;
        }
        let reason = match leaf {
            Some(leaf) => match self.path_to(leaf) {
                Ok(_) => return LeafCheck::Valid(leaf.clone()),
                Err(err) => err.to_string(),
            },
            None => "the thread has nodes but no leaf cursor".to_owned(),
        };
        match self.best_rooted_leaf() {
            Some(leaf) => LeafCheck::Repaired { leaf, reason },
            None => LeafCheck::Empty,
        }
    }

    /// The highest-seq node without children whose path reaches a root.
    fn best_rooted_leaf(&self) -> Option<NodeId> {
        let mut leaves: Vec<(&NodeId, u64)> = self
            .nodes
            .iter()
            .filter(|(id, _)| self.children(Some(id)).is_empty())
            .map(|(id, e)| (id, e.seq))
            .collect();
        // Highest seq first: `!seq` orders the seqs in reverse.
        sort_by_u64_key(&mut leaves, |(_, seq)| !*seq);
        leaves.into_iter().map(|(id, _)| id).find(|id| self.path_to(id).is_ok()).cloned()
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
