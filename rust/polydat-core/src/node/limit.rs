//! The size limit of one value: no string or byte string a node produces may
//! be longer than [`max_value_bytes`] (64 MiB unless the host sets another
//! with [`set_max_value_bytes`]). Nodes whose output grows with their inputs
//! (concatenation, formatting) check it before they grow and reserve memory
//! fallibly, so a runaway program fails with an ordinary error — a compile
//! error when the value is folded, an attributed evaluation error at run
//! time — instead of aborting the process when an allocation fails.

use super::NodeError;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    s.try_reserve(extra).map_err(|_| too_large(wanted))
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
}
