//! A stable 128-bit hash (XXH3-128, `xxhash-rust`) for cache keys and debug file names.
//!
//! `std::hash::DefaultHasher` may change between Rust releases, which would silently invalidate
//! (or worse, alias) on-disk cache entries; XXH3 is fixed by its specification and hashes tens of
//! GB/s, so hashing a kernel's whole source at launch costs microseconds. It is not
//! cryptographic: the caches also store and compare the inputs' summary, so a collision is
//! detected rather than trusted.
//!
//! Fields are written length-prefixed ([`StableHasher::field`]), so `("ab", "c")` and
//! `("a", "bc")` hash differently.

use std::fmt;

use xxhash_rust::xxh3::Xxh3;

/// Incremental XXH3-128 hasher.
#[derive(Clone)]
pub struct StableHasher {
    state: Xxh3,
}

impl fmt::Debug for StableHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StableHasher").finish_non_exhaustive()
    }
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StableHasher {
    /// A fresh hasher.
    pub fn new() -> Self {
        Self { state: Xxh3::new() }
    }

    /// Feeds raw bytes (no length prefix).
    pub fn bytes(&mut self, data: &[u8]) -> &mut Self {
        self.state.update(data);
        self
    }

    /// Feeds one field: its length (u64 little endian) then its bytes.
    pub fn field(&mut self, data: &[u8]) -> &mut Self {
        self.bytes(&(data.len() as u64).to_le_bytes());
        self.bytes(data)
    }

    /// Feeds a string field.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.field(s.as_bytes())
    }

    /// Feeds an integer field.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.field(&v.to_le_bytes())
    }

    /// The digest so far.
    pub fn finish(&self) -> Digest {
        Digest(self.state.digest128())
    }
}

/// A 128-bit digest; `Display` gives 32 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub u128);

impl Digest {
    /// Hash of one byte string (as a single field).
    pub fn of(data: &[u8]) -> Digest {
        StableHasher::new().field(data).finish()
    }

    /// The first 16 hex digits, for short file names.
    pub fn short(&self) -> String {
        format!("{:016x}", (self.0 >> 64) as u64)
    }

    /// Parses 32 hex digits.
    pub fn from_hex(s: &str) -> Option<Digest> {
        if s.len() != 32 {
            return None;
        }
        u128::from_str_radix(s, 16).ok().map(Digest)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh3_128_matches_the_one_shot_function() {
        use xxhash_rust::xxh3::xxh3_128;
        assert_eq!(StableHasher::new().finish().0, xxh3_128(b""));
        assert_eq!(
            StableHasher::new().bytes(b"a").bytes(b"bc").finish().0,
            xxh3_128(b"abc")
        );
        // The XXH3-128 of the empty input, fixed by the specification.
        assert_eq!(
            StableHasher::new().finish().to_string(),
            "99aa06d3014798d86001c324468d497f"
        );
    }

    #[test]
    fn fields_are_length_prefixed() {
        let ab_c = StableHasher::new().str("ab").str("c").finish();
        let a_bc = StableHasher::new().str("a").str("bc").finish();
        assert_ne!(ab_c, a_bc);
    }

    #[test]
    fn hex_round_trip() {
        let d = Digest::of(b"tessel");
        assert_eq!(Digest::from_hex(&d.to_string()), Some(d));
        assert_eq!(d.short().len(), 16);
        assert_eq!(Digest::from_hex("xyz"), None);
    }
}
