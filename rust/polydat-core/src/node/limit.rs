//! The size limit of one value: no string or byte string a node produces may
//! be longer than [`max_value_bytes`] (64 MiB unless the host sets another
//! with [`set_max_value_bytes`]). Nodes whose output grows with their inputs
//! (concatenation, formatting) check it before they grow and reserve memory
//! fallibly, so a runaway program fails with an ordinary error — a compile
//! error when the value is folded, an attributed evaluation error at run
//! time — instead of aborting the process when an allocation fails.
//!
//! Memory that runs out below the limit is its own failure ([`no_memory`]):
//! every growth here reserves fallibly, and [`shared_str`] /
//! [`shared_bytes`] make a value's shared copy only once its memory was
//! found. The engines report such a failure as out of memory
//! ([`is_no_memory`]), which the host raises as its out-of-memory error.

use super::NodeError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The default limit: 64 MiB.
pub const DEFAULT_MAX_VALUE_BYTES: usize = 64 << 20;

static MAX_VALUE_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_VALUE_BYTES);

/// The most bytes one string or byte-string value may hold.
#[inline]
pub fn max_value_bytes() -> usize {
    MAX_VALUE_BYTES.load(Ordering::Relaxed)
}

/// Sets the limit for every program of this process (at least 1 byte).
pub fn set_max_value_bytes(bytes: usize) {
    MAX_VALUE_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

/// The failure of a value that would hold `bytes` bytes.
#[cold]
pub fn too_large(bytes: usize) -> NodeError {
    NodeError::new(format!(
        "a value of {bytes} bytes exceeds the limit of {} bytes per value (raise it with polydat.set_max_value_bytes)",
        max_value_bytes()
    ))
}

/// How every out-of-memory message of a value starts ([`is_no_memory`] reads it).
const NO_MEMORY: &str = "out of memory: ";

/// The failure of a value of `bytes` bytes whose memory cannot be had
/// (below the limit: the process has no more).
#[cold]
pub fn no_memory(bytes: usize) -> NodeError {
    NodeError::new(format!("{NO_MEMORY}a value of {bytes} bytes could not be allocated"))
}

/// True when a node's failure message is [`no_memory`]'s.
pub fn is_no_memory(message: &str) -> bool {
    message.starts_with(NO_MEMORY)
}

/// Makes room for `extra` more bytes in `s` with no limit check (for a
/// short piece whose total the caller checks once written), or fails with
/// [`no_memory`]: no growth of a value's text may abort the process.
#[inline]
pub fn make_room(s: &mut String, extra: usize) -> Result<(), NodeError> {
    match s.capacity() - s.len() >= extra {
        true => Ok(()),
        false => s.try_reserve(extra).map_err(|_| no_memory(s.len().saturating_add(extra))),
    }
}

/// Values from this size on have their memory tried before they are copied
/// into a shared value (smaller ones are not worth a system call).
const TRY_FROM: usize = 1 << 16;

/// Fails with [`no_memory`] unless `bytes` bytes (and a shared value's
/// header) can be had now. Rust's `Arc` has no fallible constructor: the
/// memory is reserved and let go, so the copy that follows finds it.
fn ensure_memory(bytes: usize) -> Result<(), NodeError> {
    if bytes < TRY_FROM {
        return Ok(());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes.saturating_add(64)).map_err(|_| no_memory(bytes))
}

/// `text` as a shared string value's payload, or [`no_memory`].
pub fn shared_str(text: &str) -> Result<Arc<str>, NodeError> {
    ensure_memory(text.len())?;
    Ok(Arc::from(text))
}

/// `bytes` as a shared byte-string value's payload, or [`no_memory`].
pub fn shared_bytes(bytes: &[u8]) -> Result<Arc<[u8]>, NodeError> {
    ensure_memory(bytes.len())?;
    Ok(Arc::from(bytes))
}

/// Makes room for `extra` more bytes in `s`, or fails: past the limit, or
/// when the memory cannot be had.
#[inline]
pub fn reserve(s: &mut String, extra: usize) -> Result<(), NodeError> {
    reserve_from(s, 0, extra)
}

/// [`reserve`] for a value written to `s` from byte `start` on (a sink that
/// may hold earlier values: only the bytes from `start` count).
#[inline]
pub fn reserve_from(s: &mut String, start: usize, extra: usize) -> Result<(), NodeError> {
    let wanted = (s.len() - start).saturating_add(extra);
    if wanted > max_value_bytes() {
        return Err(too_large(wanted));
    }
    make_room(s, extra)
}

/// Appends `t` to `s` within the limit (see [`reserve`]).
#[inline]
pub fn push_str(s: &mut String, t: &str) -> Result<(), NodeError> {
    push_str_from(s, 0, t)
}

/// [`push_str`] for a value written to `s` from byte `start` on (see [`reserve_from`]).
#[inline]
pub fn push_str_from(s: &mut String, start: usize, t: &str) -> Result<(), NodeError> {
    reserve_from(s, start, t.len())?;
    s.push_str(t);
    Ok(())
}

/// Fails when `len` bytes would exceed the limit (for values built some
/// other way, checked once they are known).
#[inline]
pub fn check(len: usize) -> Result<(), NodeError> {
    match len > max_value_bytes() {
        true => Err(too_large(len)),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_past_the_limit_fails_before_allocating() {
        let mut s = String::from("abc");
        push_str(&mut s, "def").unwrap();
        let err = reserve(&mut s, usize::MAX).unwrap_err();
        assert!(err.message().contains("exceeds the limit of 67108864 bytes"), "{}", err.message());
        assert_eq!(s, "abcdef", "a refused growth changes nothing");
        assert!(check(DEFAULT_MAX_VALUE_BYTES).is_ok() && check(DEFAULT_MAX_VALUE_BYTES + 1).is_err());
    }

    #[test]
    fn a_value_after_earlier_ones_counts_from_its_start() {
        let mut s = "x".repeat(DEFAULT_MAX_VALUE_BYTES);
        let start = s.len();
        push_str_from(&mut s, start, "more").unwrap();
        assert!(reserve_from(&mut s, start, DEFAULT_MAX_VALUE_BYTES - 4).is_ok());
        let err = reserve_from(&mut s, start, DEFAULT_MAX_VALUE_BYTES - 3).unwrap_err();
        assert!(
            err.message().contains(&format!("a value of {} bytes", DEFAULT_MAX_VALUE_BYTES + 1)),
            "{}",
            err.message()
        );
        assert!(push_str(&mut s, "y").is_err(), "from byte 0, the whole string counts");
    }

    #[test]
    fn memory_that_cannot_be_had_is_out_of_memory_not_the_limit() {
        let mut s = String::from("abc");
        let err = make_room(&mut s, usize::MAX / 2).unwrap_err();
        assert!(is_no_memory(err.message()), "{}", err.message());
        assert!(!is_no_memory(too_large(1).message()));
        assert!(shared_str("x").is_ok() && shared_bytes(&[1; 1 << 17]).is_ok());
        assert_eq!(s, "abc");
    }
}
