//! A map kept as a sorted list, for the engine's small maps (ports, effects in flight, a thread's
//! waiting commands).
//!
//! It behaves as `BTreeMap` does for what those maps use (lookups, inserts that replace, removal,
//! iteration in key order), but its code is a binary search and `Vec` moves. Every `BTreeMap` of
//! other key and value types compiles its own B-tree, about 5–7 KB of engine wasm apiece; a map
//! of a handful of entries gains nothing from it. Inserting and removing move the entries after
//! the key, so large maps stay `BTreeMap`s.

use std::borrow::Borrow;

/// A map from `K` to `V`, its entries sorted by key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { entries: Vec::new() }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        SortedMap::default()
    }

    /// Where `key` is (`Ok`) or would be inserted (`Err`).
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(at, _)| at.borrow().cmp(key))
    }

    /// Inserts `value` at `key`; the value it replaces, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(idx) => self.entries.get_mut(idx).map(|(_, slot)| std::mem::replace(slot, value)),
            Err(idx) => {
                self.entries.insert(idx, (key, value));
                None
            }
        }
    }

    /// Removes `key`; its value, if it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let idx = self.find(key).ok()?;
        Some(self.entries.remove(idx).1)
    }

    /// The value at `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let idx = self.find(key).ok()?;
        self.entries.get(idx).map(|(_, value)| value)
    }

    /// The value at `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let idx = self.find(key).ok()?;
        self.entries.get_mut(idx).map(|(_, value)| value)
    }

    /// The value at `key`, inserting `default()` first when there is none (as
    /// `BTreeMap::entry(key).or_insert_with(default)` does).
    pub fn get_or_insert_with(&mut self, key: K, default: impl FnOnce() -> V) -> &mut V {
        let idx = match self.find(&key) {
            Ok(idx) => idx,
            Err(idx) => {
                self.entries.insert(idx, (key, default()));
                idx
            }
        };
        &mut self.entries[idx].1
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }
}

impl<K, V> SortedMap<K, V> {
    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(key, value)| (key, value))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(key, _)| key)
    }

    /// The values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, value)| value)
    }

    /// The values in key order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, value)| value)
    }

    /// How many entries it has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps the entries for which `keep` says so.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(key, value)| keep(key, value));
    }

    /// The values in key order, consuming the map.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        self.entries.into_iter().map(|(_, value)| value)
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    /// The entries in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::SortedMap;

    /// A sequence of inserts, removals and changes leaves it as it leaves a `BTreeMap`, with the
    /// same answers along the way.
    #[test]
    fn behaves_as_a_btree_map() {
        let mut ours: SortedMap<u32, u64> = SortedMap::new();
        let mut theirs: BTreeMap<u32, u64> = BTreeMap::new();
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for step in 0..4_000u64 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1442695040888963407);
            let key = ((seed >> 40) % 50) as u32;
            match (seed >> 20) % 5 {
                0 | 1 => assert_eq!(ours.insert(key, step), theirs.insert(key, step)),
                2 => assert_eq!(ours.remove(&key), theirs.remove(&key)),
                3 => {
                    *ours.get_or_insert_with(key, || step) += 1;
                    *theirs.entry(key).or_insert_with(|| step) += 1;
                }
                _ => {
                    if let (Some(a), Some(b)) = (ours.get_mut(&key), theirs.get_mut(&key)) {
                        *a += 7;
                        *b += 7;
                    }
                }
            }
            assert_eq!(ours.get(&key), theirs.get(&key));
            assert_eq!(ours.contains_key(&key), theirs.contains_key(&key));
            assert_eq!(ours.len(), theirs.len());
        }
        assert!(ours.iter().eq(theirs.iter()));
        assert!(ours.keys().eq(theirs.keys()));
        assert!(ours.values().eq(theirs.values()));
        assert_eq!(ours.is_empty(), theirs.is_empty());
        ours.retain(|key, value| (u64::from(*key) + *value) % 3 != 0);
        theirs.retain(|key, value| (u64::from(*key) + *value) % 3 != 0);
        assert!(ours.clone().into_values().eq(theirs.clone().into_values()));
        assert!(ours.into_iter().eq(theirs));
    }
}
