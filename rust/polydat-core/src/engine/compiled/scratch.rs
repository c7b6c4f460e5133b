//! Ref slots (SPEC §10): a `str`/`bytes`/`json` value lives in two buffer
//! words as a `(ptr, len)` pair naming bytes in a scratch entry owned by the
//! kernel state. Every Ref value slot — input or step output — owns exactly
//! one entry, and only its writer (the host write for an input, the producing
//! step for an output) rewrites it, republishing the pair each time.
//!
//! This is the only module of P2 with `unsafe` code. The invariant every block
//! relies on:
//!
//! > **(R)** For every Ref slot, the pair at `buf[off..off + 2]` is
//! > `(entry.as_ptr(), entry.len())` of that slot's own entry, and the entry
//! > has not been touched since the pair was written.
//!
//! (R) holds because (a) pairs are written only here ([`Scratch::publish`],
//! [`Scratch::rewrite`], [`Scratch::repoint`]), each time together with the
//! entry they name; (b) the slot layout gives Ref words to no scalar writer
//! (scalar steps write only their own scalar words, and host u64 writes
//! refuse Ref inputs); (c) a cloned state re-points every pair at its own
//! entries before use. Debug builds check (R) after every evaluation pass
//! ([`Scratch::verify`]) and at every view.
//!
//! [`Scratch::rewrite`] (a by-bytes step writing its output in place) lifts
//! (R) for one slot, its output, while the step runs: the entry is taken
//! out to be written and its pair names no bytes (length 0) until the entry
//! is put back and the pair published — also when the step fails or
//! panics. Nothing views that slot meanwhile (a step never reads its own
//! output), and a pair of length 0 names no memory, so even a view then
//! would read nothing.

/// The byte entries behind the Ref slots of one kernel state, one per Ref
/// value slot, reused across runs (no allocation once an entry is large enough).
#[derive(Debug, Default)]
pub struct Scratch {
    entries: Vec<Vec<u8>>,
}

impl Scratch {
    /// `count` empty entries.
    pub fn new(count: usize) -> Scratch {
        Scratch { entries: vec![Vec::new(); count] }
    }

    /// Rewrites entry `e` with `bytes` and publishes its pair at `buf[off]`, `buf[off + 1]`.
    #[inline]
    pub fn publish(&mut self, buf: &mut [u64], off: usize, e: usize, bytes: &[u8]) {
        // Keep the old pair harmless while the entry changes (a zero length
        // names no bytes), so a failure part-way never leaves a stale length.
        buf[off + 1] = 0;
        let entry = &mut self.entries[e];
        entry.clear();
        entry.extend_from_slice(bytes);
        buf[off] = entry.as_ptr() as usize as u64;
        buf[off + 1] = entry.len() as u64;
    }

    /// Rewrites entry `e` in place: `write` gets the entry, emptied (its
    /// capacity kept, so a steady state allocates nothing), to write the
    /// slot's new bytes into, together with this scratch and the buffer to
    /// view other slots through; then the entry goes back and its pair at
    /// `buf[off]`, `buf[off + 1]` is published — whether `write` succeeds,
    /// fails or panics. `write` must not view entry `e` itself.
    #[inline]
    pub fn rewrite<R>(
        &mut self,
        buf: &mut [u64],
        off: usize,
        e: usize,
        write: impl FnOnce(&Scratch, &[u64], &mut Vec<u8>) -> R,
    ) -> R {
        /// Puts the entry back and publishes its pair when dropped (also
        /// during a panic's unwinding), so (R) holds again afterwards.
        struct PutBack<'a> {
            scratch: &'a mut Scratch,
            buf: &'a mut [u64],
            off: usize,
            e: usize,
            entry: Vec<u8>,
        }
        impl Drop for PutBack<'_> {
            fn drop(&mut self) {
                let entry = std::mem::take(&mut self.entry);
                self.buf[self.off] = entry.as_ptr() as usize as u64;
                self.buf[self.off + 1] = entry.len() as u64;
                self.scratch.entries[self.e] = entry;
            }
        }
        // The pair names no bytes while the entry is out (see the module).
        buf[off + 1] = 0;
        let mut entry = std::mem::take(&mut self.entries[e]);
        entry.clear();
        let mut put_back = PutBack { scratch: self, buf, off, e, entry };
        let PutBack { scratch, buf, entry, .. } = &mut put_back;
        write(scratch, buf, entry)
    }

    /// The bytes named by the pair at `buf[off]` (entry `e`), borrowed for as
    /// long as both the buffer and the scratch are borrowed; callers copy out.
    #[inline]
    pub fn view<'a>(&'a self, buf: &'a [u64], off: usize, e: usize) -> &'a [u8] {
        let (ptr, len) = (buf[off] as usize as *const u8, buf[off + 1] as usize);
        debug_assert_eq!(
            (ptr, len),
            (self.entries[e].as_ptr(), self.entries[e].len()),
            "Ref pair at word {off} does not name its own scratch entry {e}"
        );
        // SAFETY: by (R) the pair is (as_ptr, len) of entry `e`, which is a live
        // Vec<u8> allocation owned by `self` holding `len` initialised bytes
        // (or a dangling, aligned, non-null pointer with len 0). The returned
        // slice borrows `self`, so the entry cannot be mutated, moved or freed
        // while the slice lives; it is read-only, so no `&mut` aliases it.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }

    /// Points every pair listed in `refs` (`(buffer word, entry)`) at this
    /// scratch's own entries: used after cloning a state, whose buffer still
    /// names the donor's entries.
    pub fn repoint(&self, buf: &mut [u64], refs: &[(u32, u32)]) {
        for &(off, e) in refs {
            let entry = &self.entries[e as usize];
            buf[off as usize] = entry.as_ptr() as usize as u64;
            buf[off as usize + 1] = entry.len() as u64;
        }
    }

    /// True when every pair listed in `refs` names its own entry (S9).
    pub fn verify(&self, buf: &[u64], refs: &[(u32, u32)]) -> bool {
        refs.iter().all(|&(off, e)| {
            let entry = &self.entries[e as usize];
            buf[off as usize] == entry.as_ptr() as usize as u64 && buf[off as usize + 1] == entry.len() as u64
        })
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
        let mut a = Scratch::new(2);
        a.repoint(&mut buf, &refs);
        a.publish(&mut buf, 2, 1, b"input");
        a.rewrite(&mut buf, 0, 0, |s, buf, out| {
            out.extend_from_slice(b"<");
            out.extend_from_slice(s.view(buf, 2, 1));
            out.reserve(100);
        });
        assert_eq!(a.view(&buf, 0, 0), b"<input");
        assert!(a.verify(&buf, &refs));
        let ptr = buf[0];
        a.rewrite(&mut buf, 0, 0, |_, _, out| {
            assert!(out.is_empty(), "the entry arrives empty");
            out.extend_from_slice(b"again");
        });
        assert_eq!((buf[0], a.view(&buf, 0, 0)), (ptr, &b"again"[..]), "no new allocation");
        // A panicking writer still leaves (R) holding.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            a.rewrite(&mut buf, 0, 0, |_, _, out| {
                out.extend_from_slice(b"part");
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
        let mut a = Scratch::new(2);
        a.repoint(&mut buf, &refs);
        assert!(a.verify(&buf, &refs));
        a.publish(&mut buf, 0, 0, b"hello");
        a.publish(&mut buf, 2, 1, b"");
        assert_eq!(a.view(&buf, 0, 0), b"hello");
        assert_eq!(a.view(&buf, 2, 1), b"");
        // A clone re-pointed at its own entries is independent of the donor.
        let b = a.clone();
        let mut buf_b = buf.clone();
        assert!(!b.verify(&buf_b, &refs[..1]), "a cloned buffer still names the donor's entry");
        b.repoint(&mut buf_b, &refs);
        assert!(b.verify(&buf_b, &refs));
        a.publish(&mut buf, 0, 0, b"changed, and longer than before");
        assert_eq!(b.view(&buf_b, 0, 0), b"hello");
        assert_eq!(a.view(&buf, 0, 0), b"changed, and longer than before");
    }
}
