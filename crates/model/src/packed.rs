//! Many short texts, each with a small value beside it, in two allocations: every text one
//! after another in one string, and beside each where it ends and its value. Kept where there
//! are thousands of them for as long as a program runs (a contact's declared fields across a
//! logbook's pages, the country file's prefixes), where an owned string each would cost an
//! allocation and the allocator's 16 to 32 bytes on top of every one.

use std::cmp::Ordering;

#[derive(Clone, PartialEq, Eq)]
pub struct Packed<T> {
    text: Box<str>,
    entries: Box<[(u32, T)]>,
}

// Not derived: a derive would ask `T: Default` for an empty list.
impl<T> Default for Packed<T> {
    fn default() -> Self {
        Packed {
            text: Box::default(),
            entries: Box::default(),
        }
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Packed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> Packed<T> {
    /// The texts and values in the order given.
    pub fn new<'a>(items: impl IntoIterator<Item = (&'a str, T)>) -> Packed<T> {
        let mut text = String::new();
        let mut entries = Vec::new();
        for (item, value) in items {
            text.push_str(item);
            // What is packed is some hundreds of kilobytes at most.
            entries.push((u32::try_from(text.len()).unwrap_or(u32::MAX), value));
        }
        Packed {
            text: text.into_boxed_str(),
            entries: entries.into_boxed_slice(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The text and value at `i`.
    pub fn get(&self, i: usize) -> (&str, T) {
        let start = i.checked_sub(1).map_or(0, |p| self.entries[p].0 as usize);
        let (end, value) = self.entries[i];
        (&self.text[start..end as usize], value)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, T)> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// A binary search, in a list sorted as `order` sees it: the index of the entry `order`
    /// calls equal, else where one would go.
    pub fn search(&self, order: impl Fn(&str, T) -> Ordering) -> Result<usize, usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            let (text, value) = self.get(mid);
            match order(text, value) {
                Ordering::Less => low = mid + 1,
                Ordering::Greater => high = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_whole_and_are_found() {
        let packed = Packed::new([("", 0), ("K", 1), ("KH6", 2), ("VE3", 3)]);
        assert_eq!(
            packed.iter().collect::<Vec<_>>(),
            [("", 0), ("K", 1), ("KH6", 2), ("VE3", 3)]
        );
        assert_eq!(packed.search(|t, _| t.cmp("KH6")), Ok(2));
        assert_eq!(packed.search(|t, _| t.cmp("W")), Err(4));
        assert_eq!(packed.search(|_, v| v.cmp(&1)), Ok(1));
        assert!(Packed::<u8>::default().is_empty());
    }
}
