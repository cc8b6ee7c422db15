//! Searches eight bytes at a time (SIMD within a register): inside a
//! WebAssembly module a loop over single bytes costs about 2 ns a byte,
//! so each pass over a 10 KiB result cost 20 µs; one over words of eight
//! costs a few.
//!
//! A mask has the high bit of each byte set where the byte matches.
//!
//! Built with SIMD (+simd128), the module uses the sixteen-byte searches
//! of mod simd instead, and some of these are left unused.
#![cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), allow(dead_code))]

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The eight bytes at b[i..i+8], little-endian (b[i] is the lowest).
#[inline(always)]
fn load(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The bytes of v that are zero.
#[inline(always)]
fn zero(v: u64) -> u64 {
    !((v & LOW7).wrapping_add(LOW7) | v | LOW7)
}

/// The bytes of v equal to c.
#[inline(always)]
fn eq(v: u64, c: u8) -> u64 {
    zero(v ^ (LO * u64::from(c)))
}

/// The ASCII bytes of v in lo..=hi.
#[inline(always)]
fn between(v: u64, lo: u8, hi: u8) -> u64 {
    let x = v & LOW7;
    let ge = x.wrapping_add(LO * u64::from(0x80 - lo));
    let gt = x.wrapping_add(LO * u64::from(0x7f - hi));
    ge & !gt & !v & HI
}

/// The bytes of v that are ASCII digits.
#[inline(always)]
fn digit(v: u64) -> u64 {
    between(v, b'0', b'9')
}

/// The bytes of v that are ASCII digits or capital letters: where an
/// IBAN or a card number may start.
#[inline(always)]
fn digit_or_upper(v: u64) -> u64 {
    digit(v) | between(v, b'A', b'Z')
}

/// The bytes of v that are word characters (\b's: letters, digits, '_').
#[inline(always)]
fn word(v: u64) -> u64 {
    digit_or_upper(v) | between(v, b'a', b'z') | eq(v, b'_')
}

/// The index of the lowest byte a mask has set.
#[inline(always)]
fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// The index of the first c in b.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
pub fn index_byte(b: &[u8], c: u8) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= b.len() {
        let m = eq(load(b, i), c);
        if m != 0 {
            return Some(i + first(m));
        }
        i += 8;
    }
    b[i..].iter().position(|&x| x == c).map(|k| i + k)
}

/// The index of the first byte of b that is c or d.
#[inline]
pub fn index_either(b: &[u8], c: u8, d: u8) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= b.len() {
        let v = load(b, i);
        let m = eq(v, c) | eq(v, d);
        if m != 0 {
            return Some(i + first(m));
        }
        i += 8;
    }
    b[i..].iter().position(|&x| x == c || x == d).map(|k| i + k)
}

/// How many ASCII digits b holds.
#[inline]
pub fn digits(b: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i + 8 <= b.len() {
        n += digit(load(b, i)).count_ones() as usize;
        i += 8;
    }
    n + b[i..].iter().filter(|c| c.is_ascii_digit()).count()
}

/// The index of the quote that ends the string whose body starts at
/// b[p] (the first '"' or '\\' is where the body ends or has an escape),
/// how many digits are before it, and where the first '@' before it is.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
pub fn scan_body(b: &[u8], p: usize) -> (Option<usize>, usize, Option<usize>) {
    let mut n = 0;
    let mut at = None;
    let mut i = p;
    while i + 8 <= b.len() {
        let v = load(b, i);
        let end = eq(v, b'"') | eq(v, b'\\');
        // The bytes before the end, if it is in this word.
        let before = if end == 0 { !0 } else { (end & end.wrapping_neg()) - 1 };
        n += (digit(v) & before).count_ones() as usize;
        if at.is_none() {
            let m = eq(v, b'@') & before;
            if m != 0 {
                at = Some(i + first(m));
            }
        }
        if end != 0 {
            return (Some(i + first(end)), n, at);
        }
        i += 8;
    }
    while i < b.len() {
        match b[i] {
            b'"' | b'\\' => return (Some(i), n, at),
            b'@' if at.is_none() => at = Some(i),
            c if c.is_ascii_digit() => n += 1,
            _ => {}
        }
        i += 1;
    }
    (None, n, at)
}

/// The first index from on of a digit or a capital letter that does not
/// follow a word character: where \b[A-Z] or \b[0-9] may match.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
pub fn next_start(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    // The first byte has no word before it in a word loaded at i-1.
    if i == 0 {
        match b.first() {
            None => return None,
            Some(c) if c.is_ascii_digit() || c.is_ascii_uppercase() => return Some(0),
            Some(_) => i = 1,
        }
    }
    while i + 8 <= b.len() {
        // The bytes at i.., and (only when one may start there, as
        // text is mostly small letters) the ones before each at i-1...
        let m = digit_or_upper(load(b, i));
        if m != 0 {
            let m = m & !word(load(b, i - 1));
            if m != 0 {
                return Some(i + first(m));
            }
        }
        i += 8;
    }
    while i < b.len() {
        let c = b[i];
        if (c.is_ascii_digit() || c.is_ascii_uppercase()) && !is_word(b[i - 1]) {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd::{index_byte, next_start, scan_body};

#[inline]
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The same searches sixteen bytes at a time, with WebAssembly's SIMD
/// (built with -C target-feature=+simd128, as scripts/build-plugins.sh
/// does); the tests of the eight-byte ones run on the host, these
/// through the Go differential test and fuzzer.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::is_word;
    use core::arch::wasm32::*;

    /// The sixteen bytes at b[i..i+16].
    #[inline(always)]
    fn load(b: &[u8], i: usize) -> v128 {
        let w = &b[i..i + 16];
        // SAFETY: w is 16 bytes long; v128_load needs no alignment.
        unsafe { v128_load(w.as_ptr() as *const v128) }
    }

    #[inline(always)]
    fn eq(v: v128, c: u8) -> v128 {
        u8x16_eq(v, u8x16_splat(c))
    }

    #[inline(always)]
    fn between(v: v128, lo: u8, hi: u8) -> v128 {
        v128_and(u8x16_ge(v, u8x16_splat(lo)), u8x16_le(v, u8x16_splat(hi)))
    }

    #[inline(always)]
    fn digit_or_upper(v: v128) -> v128 {
        v128_or(between(v, b'0', b'9'), between(v, b'A', b'Z'))
    }

    #[inline(always)]
    fn word(v: v128) -> v128 {
        v128_or(v128_or(digit_or_upper(v), between(v, b'a', b'z')), eq(v, b'_'))
    }

    #[inline(always)]
    fn mask(v: v128) -> u32 {
        u32::from(u8x16_bitmask(v))
    }

    /// See the eight-byte index_byte.
    #[inline]
    pub fn index_byte(b: &[u8], c: u8) -> Option<usize> {
        let mut i = 0;
        while i + 16 <= b.len() {
            let m = mask(eq(load(b, i), c));
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i += 16;
        }
        b[i..].iter().position(|&x| x == c).map(|k| i + k)
    }

    /// See the eight-byte scan_body.
    #[inline]
    pub fn scan_body(b: &[u8], p: usize) -> (Option<usize>, usize, Option<usize>) {
        let mut n = 0;
        let mut at = None;
        let mut i = p;
        while i + 16 <= b.len() {
            let v = load(b, i);
            let end = mask(v128_or(eq(v, b'"'), eq(v, b'\\')));
            let before = if end == 0 { 0xffff } else { (end & end.wrapping_neg()) - 1 };
            n += (mask(between(v, b'0', b'9')) & before).count_ones() as usize;
            if at.is_none() {
                let m = mask(eq(v, b'@')) & before;
                if m != 0 {
                    at = Some(i + m.trailing_zeros() as usize);
                }
            }
            if end != 0 {
                return (Some(i + end.trailing_zeros() as usize), n, at);
            }
            i += 16;
        }
        while i < b.len() {
            match b[i] {
                b'"' | b'\\' => return (Some(i), n, at),
                b'@' if at.is_none() => at = Some(i),
                c if c.is_ascii_digit() => n += 1,
                _ => {}
            }
            i += 1;
        }
        (None, n, at)
    }

    /// See the eight-byte next_start.
    #[inline]
    pub fn next_start(b: &[u8], from: usize) -> Option<usize> {
        let mut i = from;
        if i == 0 {
            match b.first() {
                None => return None,
                Some(c) if c.is_ascii_digit() || c.is_ascii_uppercase() => return Some(0),
                Some(_) => i = 1,
            }
        }
        while i + 16 <= b.len() {
            let m = mask(digit_or_upper(load(b, i)));
            if m != 0 {
                let m = m & !mask(word(load(b, i - 1)));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
            }
            i += 16;
        }
        while i < b.len() {
            let c = b[i];
            if (c.is_ascii_digit() || c.is_ascii_uppercase()) && !is_word(b[i - 1]) {
                return Some(i);
            }
            i += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn against_bytes() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u8
        };
        let alphabet = b"aZ09_ \"\\@.\x80\xff\x7f/:[`{";
        for len in 0..40 {
            for _ in 0..200 {
                let b: Vec<u8> = (0..len).map(|_| alphabet[usize::from(next()) % alphabet.len()]).collect();
                for &c in b"\"@\\" {
                    assert_eq!(index_byte(&b, c), b.iter().position(|&x| x == c), "{:?}", b);
                }
                assert_eq!(index_either(&b, b'"', b'\\'), b.iter().position(|&x| x == b'"' || x == b'\\'));
                assert_eq!(digits(&b), b.iter().filter(|c| c.is_ascii_digit()).count());
                for p in 0..=b.len() {
                    let end = b[p..].iter().position(|&x| x == b'"' || x == b'\\').map(|k| p + k);
                    let body = &b[p..end.unwrap_or(b.len())];
                    let at = body.iter().position(|&x| x == b'@').map(|k| p + k);
                    assert_eq!(scan_body(&b, p), (end, digits(body), at), "{:?} at {}", b, p);
                }
                for from in 0..=b.len() {
                    let want = (from..b.len()).find(|&i| {
                        (b[i].is_ascii_digit() || b[i].is_ascii_uppercase()) && (i == 0 || !is_word(b[i - 1]))
                    });
                    assert_eq!(next_start(&b, from), want, "{:?} from {}", b, from);
                }
            }
        }
    }
}
