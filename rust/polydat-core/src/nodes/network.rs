//! Network family: addresses of the public IPv4 internet.
//!
//! [`NOT_PUBLIC`] is every IPv4 block the IANA special-purpose address
//! registry (RFC 6890 and its updates) and the multicast and reserved
//! space leave out of the global internet: this network, private,
//! shared (carrier-grade NAT), loopback, link-local, IETF protocol
//! assignments, documentation, 6to4 relay, benchmarking, multicast,
//! reserved and broadcast. The public addresses are the rest, numbered in
//! order; `ipv4_public_address` maps its input onto them uniformly.

use crate::node::by_bytes::{push_u64, to_text};
use crate::node::{wire, NodeDef, Outputs};
use crate::types::PortType::{Str, U64};

/// The blocks no public address lies in, as (first address, prefix
/// length), in ascending order and disjoint.
pub const NOT_PUBLIC: &[(u32, u32)] = &[
    (0x0000_0000, 8),  // 0.0.0.0/8 "this network"
    (0x0A00_0000, 8),  // 10.0.0.0/8 private
    (0x6440_0000, 10), // 100.64.0.0/10 shared address space (CGNAT)
    (0x7F00_0000, 8),  // 127.0.0.0/8 loopback
    (0xA9FE_0000, 16), // 169.254.0.0/16 link-local
    (0xAC10_0000, 12), // 172.16.0.0/12 private
    (0xC000_0000, 24), // 192.0.0.0/24 IETF protocol assignments
    (0xC000_0200, 24), // 192.0.2.0/24 documentation (TEST-NET-1)
    (0xC058_6300, 24), // 192.88.99.0/24 6to4 relay anycast (deprecated)
    (0xC0A8_0000, 16), // 192.168.0.0/16 private
    (0xC612_0000, 15), // 198.18.0.0/15 benchmarking
    (0xC633_6400, 24), // 198.51.100.0/24 documentation (TEST-NET-2)
    (0xCB00_7100, 24), // 203.0.113.0/24 documentation (TEST-NET-3)
    (0xE000_0000, 4),  // 224.0.0.0/4 multicast
    (0xF000_0000, 4),  // 240.0.0.0/4 reserved, 255.255.255.255 broadcast
];

/// How many public IPv4 addresses there are.
pub fn public_count() -> u64 {
    (1u64 << 32) - NOT_PUBLIC.iter().map(|&(_, prefix)| 1u64 << (32 - prefix)).sum::<u64>()
}

/// The public address number `n` (from 0, in address order; `n` below
/// [`public_count`]): `n` moved past every excluded block at or below it.
pub fn public_address(n: u64) -> u32 {
    let mut address = n;
    for &(first, prefix) in NOT_PUBLIC {
        if address >= u64::from(first) {
            address += 1u64 << (32 - prefix);
        }
    }
    address as u32
}

/// `ipv4_public_address`: a dotted public IPv4 address, uniformly over the public space.
pub const IPV4_PUBLIC_ADDRESS: NodeDef = NodeDef {
    name: "ipv4_public_address",
    category: "network",
    doc: "A dotted IPv4 address of the public internet: input mod the number of public addresses, in address order (no private, loopback, link-local, CGNAT, documentation, benchmarking, multicast or reserved block). Hash the input first.",
    params: &[wire("input", U64)],
    outputs: Outputs::One(Str),
    build: |_| {
        let count = public_count();
        Ok(to_text(move |x: u64, out: &mut String| {
            let octets = public_address(x % count).to_be_bytes();
            for (i, octet) in octets.iter().enumerate() {
                if i > 0 {
                    out.push('.');
                }
                push_u64(out, u64::from(*octet));
            }
        }))
    },
    ..NodeDef::BASE
};

/// The network family.
pub const NODES: &[NodeDef] = &[IPV4_PUBLIC_ADDRESS];

#[cfg(test)]
mod tests {
    use super::*;

    fn excluded(address: u32) -> bool {
        NOT_PUBLIC.iter().any(|&(first, prefix)| address >> (32 - prefix) == first >> (32 - prefix))
    }

    #[test]
    fn the_public_space_skips_every_excluded_block() {
        assert!(NOT_PUBLIC.windows(2).all(|w| u64::from(w[0].0) + (1u64 << (32 - w[0].1)) <= u64::from(w[1].0)));
        assert_eq!(public_count(), 3_702_258_432);
        assert_eq!(public_address(0), 0x0100_0000, "1.0.0.0 is the first public address");
        assert_eq!(public_address(public_count() - 1), 0xDFFF_FFFF, "223.255.255.255 the last");
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            x = crate::nodes::hash::splitmix64(x);
            let address = public_address(x % public_count());
            assert!(!excluded(address), "{address:#x}");
        }
        // Around each block: the address before it and the one after it.
        for &(first, prefix) in NOT_PUBLIC.iter().skip(1).take(NOT_PUBLIC.len() - 3) {
            let (mut lo, mut hi) = (0u64, public_count());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if public_address(mid) < first {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            assert_eq!(public_address(lo), first + (1 << (32 - prefix)));
            assert_eq!(public_address(lo - 1), first - 1);
        }
    }
}
