//! Stable sorting by an integer key with one compiled sort for the whole program.
//!
//! Each `sort_by_key` over another element type compiles its own copy of the standard library's
//! stable sort, about 3 KB of engine wasm apiece. [`sort_by_u64_key`] instead sorts the keys
//! (paired with their positions) with one non-generic sort and then moves the elements into that
//! order by swaps; the only code per element type is the key function and the swap loop.

/// Sorts `items` by `key`, ascending; equal keys keep their order (as `sort_by_key` does).
pub fn sort_by_u64_key<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    let keys: Vec<u64> = items.iter().map(key).collect();
    for (a, b) in swaps_to_sort(keys) {
        items.swap(a, b);
    }
}

/// The swaps, applied in order, that sort a slice whose keys are `keys` stably.
fn swaps_to_sort(keys: Vec<u64>) -> Vec<(usize, usize)> {
    // The pairs are distinct (their positions differ), so the unstable sort of pairs gives the
    // stable order of keys: equal keys stay in position order.
    let mut pairs: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
    pairs.sort_unstable();
    // `from[i]`: the position whose element belongs at `i`. Each cycle of that permutation is
    // closed by walking it: swapping `i` with `from[i]` puts the right element at `i` and moves
    // the one that was at `i` on to the next position of the cycle, until the cycle ends where it
    // began.
    let from: Vec<usize> = pairs.into_iter().map(|(_, position)| position).collect();
    let mut placed = vec![false; from.len()];
    let mut swaps = Vec::new();
    for start in 0..from.len() {
        let mut at = start;
        while !placed[at] {
            placed[at] = true;
            let next = from[at];
            if next == start {
                break;
            }
            swaps.push((at, next));
            at = next;
        }
    }
    swaps
}

#[cfg(test)]
mod tests {
    use super::sort_by_u64_key;

    /// Every arrangement of keys with repeats sorts as the standard stable sort does.
    #[test]
    fn sorts_as_the_stable_sort_does() {
        // Each element is (key, original position): equal keys must keep their positions' order.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for len in 0..40 {
            for _ in 0..25 {
                let items: Vec<(u64, usize)> = (0..len)
                    .map(|i| {
                        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        ((seed >> 33) % 7, i)
                    })
                    .collect();
                let mut ours = items.clone();
                sort_by_u64_key(&mut ours, |item| item.0);
                let mut std = items;
                std.sort_by_key(|item| item.0);
                assert_eq!(ours, std);
            }
        }
    }

    #[test]
    fn extreme_keys_and_reverse_order() {
        let mut items = vec![u64::MAX, 3, 0, u64::MAX - 1, 3, 1];
        sort_by_u64_key(&mut items, |key| *key);
        assert_eq!(items, [0, 1, 3, 3, u64::MAX - 1, u64::MAX]);
        let mut items: Vec<u64> = (0..100).rev().collect();
        sort_by_u64_key(&mut items, |key| *key);
        assert_eq!(items, (0..100).collect::<Vec<_>>());
    }
}
