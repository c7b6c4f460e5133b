//! Ref slots: a `str`/`bytes`/`json` value lives in two buffer
//! words as a `(ptr, len)` pair naming bytes in a scratch entry owned by the
//! kernel state. Every Ref value slot — input or step output — owns exactly
//! one entry, and only its writer (the host write for an input, the producing
//! step for an output) rewrites it, republishing the pair each time.
//!
//! An entry is typed by its slot: a `str` or `json` slot's entry is a
//! `String` (so its text is valid UTF-8 by construction and is read as a
//! `&str` with no check), a `bytes` slot's a `Vec<u8>`.
//!
//! This is the only module of the compiled layer with `unsafe` code. The invariant every block
//! relies on:
//!
//! > **(R)** For every Ref slot, the pair at `buf[off..off + 2]` is
//! > `(entry.as_ptr(), entry.len())` of that slot's own entry, and the entry
//! > has not been touched since the pair was written.
//!
//! (R) holds because (a) pairs are written only here ([`Scratch::publish_text`],
//! [`Scratch::publish_bytes`],
//! [`Scratch::rewrite`], [`Scratch::repoint`]), each time together with the
//! entry they name; (b) the slot layout gives Ref words to no scalar writer
//! (scalar steps write only their own scalar words, and host u64 writes
//! refuse Ref inputs); (c) a cloned state re-points every pair at its own
//! entries before use. Debug builds check (R) after every evaluation pass
//! ([`Scratch::verify`]) and at every view.
//!
//! [`Scratch::rewrite`] (a by-bytes step writing its output in place) lifts
//! (R) for one slot, its output, while the step runs: its pair names no
//! bytes (length 0) while the entry is written (it may move when it grows),
//! and is published again afterwards — also when the step fails or panics.
//! The writer reads the other entries only ([`Peers`]: the entry being
//! written is borrowed mutably, so it cannot be viewed), and a pair of
//! length 0 names no memory.

use crate::node::{limit, NodeError};

/// One scratch entry: the text of a `str`/`json` slot or the bytes of a
/// `bytes` slot.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A `str` or `json` slot's text.
    Text(String),
    /// A `bytes` slot's bytes.
    Bytes(Vec<u8>),
}

impl Entry {
    #[inline]
    fn as_bytes(&self) -> &[u8] {
        match self {
            Entry::Text(s) => s.as_bytes(),
            Entry::Bytes(b) => b,
        }
    }

    /// The pair naming this entry's bytes.
    #[inline]
    fn pair(&self) -> (u64, u64) {
        let bytes = self.as_bytes();
        (bytes.as_ptr() as usize as u64, bytes.len() as u64)
    }
}

/// An entry's buffer as a writer gets it: a `String` (text entries) or a
/// `Vec<u8>` (bytes entries).
pub trait EntryBuf: Sized {
    /// The buffer of `entry`, emptied (capacity kept); an entry of the
    /// other kind (which a layout never asks for) is replaced first.
    fn emptied(entry: &mut Entry) -> &mut Self;
}

impl EntryBuf for String {
    #[inline]
    fn emptied(entry: &mut Entry) -> &mut String {
        if let Entry::Bytes(_) = entry {
            *entry = Entry::Text(String::new());
        }
        match entry {
            Entry::Text(s) => {
                s.clear();
                s
            }
            Entry::Bytes(_) => unreachable!("the entry was just made a text entry"),
        }
    }
}

impl EntryBuf for Vec<u8> {
    #[inline]
    fn emptied(entry: &mut Entry) -> &mut Vec<u8> {
        if let Entry::Text(_) = entry {
            *entry = Entry::Bytes(Vec::new());
        }
        match entry {
            Entry::Bytes(b) => {
                b.clear();
                b
            }
            Entry::Text(_) => unreachable!("the entry was just made a bytes entry"),
        }
    }
}

/// The other entries of a scratch while one is being rewritten
/// ([`Scratch::rewrite`]): what the writer may read.
pub struct Peers<'a> {
    before: &'a [Entry],
    after: &'a [Entry],
}

impl<'a> Peers<'a> {
    /// Entry `e` (not the one being rewritten).
    #[inline]
    fn entry(&self, e: usize) -> &'a Entry {
        match e.checked_sub(self.before.len()) {
            None => &self.before[e],
            Some(k) => &self.after[k - 1],
        }
    }

    /// The text of text entry `e`, whose pair is at `buf[off]` (`None` for a
    /// bytes entry), read from the entry itself.
    #[inline]
    pub fn view_text(&self, buf: &[u64], off: usize, e: usize) -> Option<&'a str> {
        let entry = self.entry(e);
        debug_assert_eq!((buf[off], buf[off + 1]), entry.pair(), "Ref pair at word {off} does not name entry {e}");
        match entry {
            Entry::Text(s) => Some(s),
            Entry::Bytes(_) => None,
        }
    }

    /// The bytes of entry `e`, whose pair is at `buf[off]`, read from the entry itself.
    #[inline]
    pub fn view(&self, buf: &[u64], off: usize, e: usize) -> &'a [u8] {
        let entry = self.entry(e);
        debug_assert_eq!((buf[off], buf[off + 1]), entry.pair(), "Ref pair at word {off} does not name entry {e}");
        entry.as_bytes()
    }
}

/// The entries behind the Ref slots of one kernel state, one per Ref value
/// slot, reused across runs (no allocation once an entry is large enough).
#[derive(Debug, Default)]
pub struct Scratch {
    entries: Vec<Entry>,
}

impl Scratch {
    /// One empty entry per element of `text`: a text entry where it is true
    /// (a `str` or `json` slot), a bytes entry otherwise.
    pub fn new(text: &[bool]) -> Scratch {
        let entry = |&t: &bool| if t { Entry::Text(String::new()) } else { Entry::Bytes(Vec::new()) };
        Scratch { entries: text.iter().map(entry).collect() }
    }

    /// Rewrites entry `e` with `text` and publishes its pair at `buf[off]`,
    /// `buf[off + 1]` (a bytes entry takes the text's bytes). When the
    /// entry cannot grow to hold it, the entry is left empty and the
    /// failure is [`limit::no_memory`]'s.
    #[inline]
    pub fn publish_text(&mut self, buf: &mut [u64], off: usize, e: usize, text: &str) -> Result<(), NodeError> {
        // Keep the old pair harmless while the entry changes (a zero length
        // names no bytes), so a failure part-way never leaves a stale length.
        buf[off + 1] = 0;
        let entry = &mut self.entries[e];
        let grown = match entry {
            Entry::Text(s) => {
                s.clear();
                s.try_reserve_exact(text.len()).map(|()| s.push_str(text))
            }
            Entry::Bytes(b) => {
                b.clear();
                b.try_reserve_exact(text.len()).map(|()| b.extend_from_slice(text.as_bytes()))
            }
        };
        (buf[off], buf[off + 1]) = entry.pair();
        grown.map_err(|_| limit::no_memory(text.len()))
    }

    /// Rewrites entry `e` with `bytes` and publishes its pair (a text entry
    /// takes them as text, invalid UTF-8 replaced, as a decode would read them).
    /// (Fails as [`Scratch::publish_text`] does.)
    #[inline]
    pub fn publish_bytes(&mut self, buf: &mut [u64], off: usize, e: usize, bytes: &[u8]) -> Result<(), NodeError> {
        match &self.entries[e] {
            Entry::Bytes(_) => {
                buf[off + 1] = 0;
                let entry = &mut self.entries[e];
                let mut grown = Ok(());
                if let Entry::Bytes(b) = entry {
                    b.clear();
                    grown = b.try_reserve_exact(bytes.len()).map(|()| b.extend_from_slice(bytes));
                }
                (buf[off], buf[off + 1]) = entry.pair();
                grown.map_err(|_| limit::no_memory(bytes.len()))
            }
            Entry::Text(_) => self.publish_text(buf, off, e, &String::from_utf8_lossy(bytes)),
        }
    }

    /// Rewrites entry `e` in place: `write` gets the entry's buffer (a
    /// `String` for a text entry, a `Vec<u8>` for a bytes entry), emptied
    /// (its capacity kept, so a steady state allocates nothing), to write
    /// the slot's new value into, together with the other entries and the
    /// buffer to read other slots through; then the entry's pair at
    /// `buf[off]`, `buf[off + 1]` is published — whether `write` succeeds,
    /// fails or panics.
    #[inline]
    pub fn rewrite<B: EntryBuf, R>(
        &mut self,
        buf: &mut [u64],
        off: usize,
        e: usize,
        write: impl FnOnce(&Peers<'_>, &[u64], &mut B) -> R,
    ) -> R {
        /// Publishes the entry's pair when dropped (also during a panic's
        /// unwinding), so (R) holds again afterwards.
        struct Publish<'a> {
            buf: &'a mut [u64],
            off: usize,
            entry: &'a mut Entry,
        }
        impl Drop for Publish<'_> {
            #[inline]
            fn drop(&mut self) {
                let bytes = self.entry.as_bytes();
                // Two word loads, not one load of the pair: the writer has
                // just stored the length, and a load spanning that store
                // would wait for it to reach the cache.
                let len = std::hint::black_box(bytes.len());
                self.buf[self.off] = bytes.as_ptr() as usize as u64;
                self.buf[self.off + 1] = len as u64;
            }
        }
        // The pair names no bytes while the entry changes (see the module).
        buf[off + 1] = 0;
        let (before, rest) = self.entries.split_at_mut(e);
        let (entry, after) = rest.split_first_mut().expect("a scratch entry per Ref slot");
        let peers = Peers { before, after };
        let mut publish = Publish { buf, off, entry };
        let Publish { buf, entry, .. } = &mut publish;
        write(&peers, buf, B::emptied(entry))
    }

    /// Every entry, for reading while none is being rewritten.
    #[inline]
    pub fn peers(&self) -> Peers<'_> {
        Peers { before: &self.entries, after: &[] }
    }

    /// The text of text entry `e`, whose pair is at `buf[off]` (`None` for a
    /// bytes entry). Read from the entry itself: no check of the bytes.
    #[inline]
    pub fn view_text<'a>(&'a self, buf: &'a [u64], off: usize, e: usize) -> Option<&'a str> {
        let entry = &self.entries[e];
        debug_assert_eq!((buf[off], buf[off + 1]), entry.pair(), "Ref pair at word {off} does not name entry {e}");
        match entry {
            Entry::Text(s) => Some(s),
            Entry::Bytes(_) => None,
        }
    }

    /// The bytes named by the pair at `buf[off]` (entry `e`), borrowed for as
    /// long as both the buffer and the scratch are borrowed; callers copy out.
    #[inline]
    pub fn view<'a>(&'a self, buf: &'a [u64], off: usize, e: usize) -> &'a [u8] {
        let (ptr, len) = (buf[off] as usize as *const u8, buf[off + 1] as usize);
        debug_assert_eq!(
            (ptr as usize as u64, len as u64),
            self.entries[e].pair(),
            "Ref pair at word {off} does not name its own scratch entry {e}"
        );
        // SAFETY: by (R) the pair is (as_ptr, len) of entry `e`'s bytes, a live
        // String or Vec<u8> allocation owned by `self` holding `len` initialised
        // bytes (or a dangling, aligned, non-null pointer with len 0). The returned
        // slice borrows `self`, so the entry cannot be mutated, moved or freed
        // while the slice lives; it is read-only, so no `&mut` aliases it.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }

    /// Points every pair listed in `refs` (`(buffer word, entry)`) at this
    /// scratch's own entries: used after cloning a state, whose buffer still
    /// names the donor's entries.
    pub fn repoint(&self, buf: &mut [u64], refs: &[(u32, u32)]) {
        for &(off, e) in refs {
            (buf[off as usize], buf[off as usize + 1]) = self.entries[e as usize].pair();
        }
    }

    /// True when every pair listed in `refs` names its own entry (S9).
    pub fn verify(&self, buf: &[u64], refs: &[(u32, u32)]) -> bool {
        refs.iter().all(|&(off, e)| (buf[off as usize], buf[off as usize + 1]) == self.entries[e as usize].pair())
    }
}

impl Clone for Scratch {
    /// Deep copy: the clone owns new allocations. Its pairs must be re-pointed
    /// with [`Scratch::repoint`] before the clone is read.
    fn clone(&self) -> Scratch {
        Scratch { entries: self.entries.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_keeps_the_allocation_and_publishes_its_pair() {
        let refs = [(0u32, 0u32), (2, 1)];
        let mut buf = vec![0u64; 4];
        let mut a = Scratch::new(&[true, false]);
        a.repoint(&mut buf, &refs);
        a.publish_bytes(&mut buf, 2, 1, b"input").unwrap();
        a.rewrite(&mut buf, 0, 0, |peers, buf, out: &mut String| {
            out.push('<');
            out.push_str(std::str::from_utf8(peers.view(buf, 2, 1)).unwrap());
            assert_eq!(peers.view_text(buf, 2, 1), None, "a bytes entry has no text");
            out.reserve(100);
        });
        assert_eq!(a.view_text(&buf, 0, 0), Some("<input"));
        assert_eq!(a.view_text(&buf, 2, 1), None, "a bytes entry has no text");
        assert!(a.verify(&buf, &refs));
        let ptr = buf[0];
        a.rewrite(&mut buf, 0, 0, |_, _, out: &mut String| {
            assert!(out.is_empty(), "the entry arrives empty");
            out.push_str("again");
        });
        assert_eq!((buf[0], a.view(&buf, 0, 0)), (ptr, &b"again"[..]), "no new allocation");
        // A panicking writer still leaves (R) holding.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            a.rewrite(&mut buf, 0, 0, |_, _, out: &mut String| {
                out.push_str("part");
                panic!("a node panicked");
            })
        }));
        assert!(caught.is_err());
        assert!(a.verify(&buf, &refs));
        assert_eq!(a.view(&buf, 0, 0), b"part");
    }

    #[test]
    fn publish_view_and_repoint() {
        let refs = [(0u32, 0u32), (2, 1)];
        let mut buf = vec![0u64; 4];
        let mut a = Scratch::new(&[false, true]);
        a.repoint(&mut buf, &refs);
        assert!(a.verify(&buf, &refs));
        a.publish_bytes(&mut buf, 0, 0, b"hello").unwrap();
        a.publish_text(&mut buf, 2, 1, "").unwrap();
        assert_eq!(a.view(&buf, 0, 0), b"hello");
        assert_eq!(a.view(&buf, 2, 1), b"");
        // A clone re-pointed at its own entries is independent of the donor.
        let b = a.clone();
        let mut buf_b = buf.clone();
        assert!(!b.verify(&buf_b, &refs[..1]), "a cloned buffer still names the donor's entry");
        b.repoint(&mut buf_b, &refs);
        assert!(b.verify(&buf_b, &refs));
        a.publish_bytes(&mut buf, 0, 0, b"changed, and longer than before").unwrap();
        assert_eq!(b.view(&buf_b, 0, 0), b"hello");
        assert_eq!(a.view(&buf, 0, 0), b"changed, and longer than before");
    }
}
