//! The scanners: e-mail addresses, IBANs and card numbers, found by hand
//! as the Go example's (examples/interceptors/redact/redact.go) are, match
//! for match. Each matches exactly what its regular expression matches
//! (kept in the Go example's redact_test.go as the reference):
//!
//! ```text
//! email  [A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}
//! iban   \b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b
//! card   \b(?:[0-9][ \-]?){12,18}[0-9]\b
//! ```
//!
//! An IBAN is redacted only if its check digits hold (`valid_iban`), a
//! card number only if it passes the Luhn check (`valid_card`). E-mail
//! addresses are replaced first, then IBANs and card numbers, over the
//! text the e-mail addresses left.

use crate::swar::{digits, index_byte, next_start};

pub const EMAIL: &[u8] = b"[redacted email]";
pub const IBAN: &[u8] = b"[redacted iban]";
pub const CARD: &[u8] = b"[redacted card]";

/// Which patterns to redact.
#[derive(Clone, Copy)]
pub struct Redactor {
    pub email: bool,
    pub iban: bool,
    pub card: bool,
}

/// Buffers reused from one string to the next, so that redacting a
/// result allocates once per buffer, not once per string.
#[derive(Default)]
pub struct Scratch {
    /// The text with e-mail addresses replaced.
    pub emails: Vec<u8>,
    /// The text with IBANs and card numbers replaced too.
    pub numbers: Vec<u8>,
    /// A JSON string's body, redacted piece by piece or encoded again.
    pub body: Vec<u8>,
    /// A JSON string with \u escapes, decoded.
    pub decoded: Vec<u8>,
}

/// Where `Redactor::redact` left the redacted text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Redacted {
    /// Nothing matched: the text is as it was.
    Unchanged,
    /// In `Scratch::emails`.
    Emails,
    /// In `Scratch::numbers`.
    Numbers,
}

impl Redacted {
    /// The redacted text in s; None when unchanged.
    pub fn text<'a>(self, s: &'a Scratch) -> Option<&'a [u8]> {
        match self {
            Redacted::Unchanged => None,
            Redacted::Emails => Some(&s.emails),
            Redacted::Numbers => Some(&s.numbers),
        }
    }
}

impl Redactor {
    /// All three patterns.
    pub const ALL: Redactor = Redactor { email: true, iban: true, card: true };

    /// The redactor of patterns (email, iban, card; white space around
    /// and case do not matter); none means all. An unknown pattern is an
    /// error, worded as the Go example's.
    pub fn new(patterns: &[String]) -> Result<Redactor, String> {
        if patterns.is_empty() {
            return Ok(Redactor::ALL);
        }
        let mut r = Redactor { email: false, iban: false, card: false };
        for p in patterns {
            match p.trim().to_ascii_lowercase().as_str() {
                "email" => r.email = true,
                "iban" => r.iban = true,
                "card" => r.card = true,
                _ => {
                    return Err(format!(
                        "redact: unknown pattern {} (want email, iban or card)",
                        go_quote(p)
                    ))
                }
            }
        }
        Ok(r)
    }

    /// Redacts b into s: e-mail addresses first, then IBANs and card
    /// numbers over what that left.
    pub fn redact(&self, b: &[u8], s: &mut Scratch) -> Redacted {
        let first_at = if self.email { index_byte(b, b'@') } else { None };
        self.redact_known(b, digits(b), first_at, s)
    }

    /// redact, told how many digits b holds and where its first '@' is
    /// (by swar::scan_body, which found them while finding b's end).
    pub fn redact_known(&self, b: &[u8], mut digits: usize, first_at: Option<usize>, s: &mut Scratch) -> Redacted {
        let mut at = Redacted::Unchanged;
        if let (true, Some(first_at)) = (self.email, first_at) {
            s.emails.clear();
            if let Some(removed) = emails(b, first_at, &mut s.emails) {
                at = Redacted::Emails;
                digits -= removed;
            }
        }
        let text: &[u8] = if at == Redacted::Emails { &s.emails } else { b };
        // IBANs and card numbers have at least 13 digits: a text with
        // fewer is not searched.
        if (self.iban || self.card) && digits >= 13 {
            s.numbers.clear();
            if self.numbers(text, &mut s.numbers) {
                at = Redacted::Numbers;
            }
        }
        at
    }

    /// Replaces IBANs and card numbers of b in one pass, appending to out
    /// only if one matched, as two passes would, IBANs first: an IBAN
    /// match whose check digits fail stays as it is and no other IBAN
    /// match starts inside it, but card numbers are still searched there.
    fn numbers(&self, b: &[u8], out: &mut Vec<u8>) -> bool {
        let mut last = 0;
        let mut no_iban = 0;
        let mut any = false;
        let mut i = 0;
        while let Some(k) = next_start(b, i) {
            i = k;
            let c = b[i];
            let (end, with) = if is_upper(c) {
                if !self.iban || i < no_iban {
                    i += 1;
                    continue;
                }
                let end = match iban_at(b, i) {
                    Some(end) => end,
                    None => {
                        i += 1;
                        continue;
                    }
                };
                if !valid_iban(&b[i..end]) {
                    no_iban = end;
                    i += 1;
                    continue;
                }
                (end, IBAN)
            } else {
                if !self.card {
                    i += 1;
                    continue;
                }
                let end = match card_at(b, i) {
                    Some(end) => end,
                    None => {
                        i += 1;
                        continue;
                    }
                };
                if !valid_card(&b[i..end]) {
                    i = end;
                    continue;
                }
                (end, CARD)
            };
            if !any {
                out.reserve(b.len() + b.len() / 4);
                any = true;
            }
            out.extend_from_slice(&b[last..i]);
            out.extend_from_slice(with);
            last = end;
            i = end;
        }
        if any {
            out.extend_from_slice(&b[last..]);
        }
        any
    }
}

#[inline]
fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

#[inline]
fn is_upper(c: u8) -> bool {
    c.is_ascii_uppercase()
}

#[inline]
fn is_alpha(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

#[inline]
fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// \b's word character: ASCII letters, digits and '_'.
#[inline]
fn is_word(c: u8) -> bool {
    is_alnum(c) || c == b'_'
}

#[inline]
fn is_local(c: u8) -> bool {
    is_alnum(c) || c == b'.' || c == b'_' || c == b'%' || c == b'+' || c == b'-'
}

#[inline]
fn is_group(c: u8) -> bool {
    is_upper(c) || is_digit(c)
}

/// Replaces every e-mail address of b, whose first '@' is at b[from],
/// appending to out only if there is one; it returns how many digits the
/// addresses it replaced held, None if there was none.
fn emails(b: &[u8], mut from: usize, out: &mut Vec<u8>) -> Option<usize> {
    let mut last = 0;
    let mut any = false;
    let mut removed = 0;
    while let Some(k) = index_byte(&b[from..], b'@') {
        let at = from + k;
        from = at + 1;
        let mut start = at;
        while start > last && is_local(b[start - 1]) {
            start -= 1;
        }
        if start == at {
            continue;
        }
        let end = match domain_end(b, at + 1) {
            Some(end) => end,
            None => continue,
        };
        if !any {
            out.reserve(b.len() + b.len() / 4);
            any = true;
        }
        out.extend_from_slice(&b[last..start]);
        out.extend_from_slice(EMAIL);
        removed += digits(&b[start..end]);
        last = end;
        from = end;
    }
    if !any {
        return None;
    }
    out.extend_from_slice(&b[last..]);
    Some(removed)
}

/// Where the longest domain starting at b[p] ends: labels of
/// [A-Za-z0-9-] joined by dots, the last one two or more letters.
fn domain_end(b: &[u8], p: usize) -> Option<usize> {
    let mut q = p;
    while q < b.len() && (is_alnum(b[q]) || b[q] == b'-' || b[q] == b'.') {
        q += 1;
    }
    let mut run = &b[p..q];
    if run.is_empty() || run[0] == b'.' {
        return None;
    }
    if let Some(k) = run.windows(2).position(|w| w == b"..") {
        run = &run[..k];
    }
    // The longest end, label by label from the last: the label after
    // the dot d ends at most at the next dot (or the run's end), and is
    // letters up to the first that is not one.
    let mut next = run.len();
    loop {
        let d = run[..next].iter().rposition(|&c| c == b'.')?;
        if d < 1 {
            return None;
        }
        let letters = run[d + 1..next].iter().take_while(|&&c| is_alpha(c)).count();
        if letters >= 2 {
            return Some(p + d + 1 + letters);
        }
        next = d;
    }
}

/// Whether \b holds after a word character at b[i-1].
#[inline]
fn boundary_at(b: &[u8], i: usize) -> bool {
    i == b.len() || !is_word(b[i])
}

/// Whether b[p..p+4] is a group of four letters or digits.
#[inline]
fn group_at(b: &[u8], p: usize) -> bool {
    p + 4 <= b.len() && is_group(b[p]) && is_group(b[p + 1]) && is_group(b[p + 2]) && is_group(b[p + 3])
}

/// The end of the IBAN pattern's match at b[i]: the pattern's groups
/// taken greedily, then given back one by one as a regular expression
/// backtracks.
fn iban_at(b: &[u8], i: usize) -> Option<usize> {
    if i + 4 > b.len() || !is_upper(b[i]) || !is_upper(b[i + 1]) || !is_digit(b[i + 2]) || !is_digit(b[i + 3]) {
        return None;
    }
    // ends[k] is where the k-th group of four (optionally after a space)
    // ends.
    let mut ends = [0usize; 8];
    ends[0] = i + 4;
    let mut n = 0;
    while n < 7 {
        let mut p = ends[n];
        if p < b.len() && b[p] == b' ' {
            p += 1;
        }
        if !group_at(b, p) {
            // Without the space, if there was one.
            p = ends[n];
            if !group_at(b, p) {
                break;
            }
        }
        n += 1;
        ends[n] = p + 4;
    }
    while n >= 2 {
        let p = ends[n];
        // The last group of one to three, with and then without a space.
        for sp in [1, 0] {
            let mut q = p;
            if sp == 1 {
                if q >= b.len() || b[q] != b' ' {
                    continue;
                }
                q += 1;
            }
            let mut k = 0;
            while k < 3 && q + k < b.len() && is_group(b[q + k]) {
                k += 1;
            }
            while k >= 1 {
                if boundary_at(b, q + k) {
                    return Some(q + k);
                }
                k -= 1;
            }
        }
        if boundary_at(b, p) {
            return Some(p);
        }
        n -= 1;
    }
    None
}

/// The end of the card pattern's match at b[i]: 13 to 19 digits,
/// consecutive ones apart by at most one space or dash, the longest that
/// ends at a word boundary.
fn card_at(b: &[u8], i: usize) -> Option<usize> {
    // ends[m-1] is where the chain's m-th digit ends.
    let mut ends = [0usize; 19];
    let mut m = 0;
    let mut p = i;
    while m < 19 && p < b.len() && is_digit(b[p]) {
        ends[m] = p + 1;
        m += 1;
        p += 1;
        if p + 1 < b.len() && (b[p] == b' ' || b[p] == b'-') && is_digit(b[p + 1]) {
            p += 1;
        }
    }
    while m >= 13 {
        if boundary_at(b, ends[m - 1]) {
            return Some(ends[m - 1]);
        }
        m -= 1;
    }
    None
}

/// Whether s, spaces aside, is 15 to 34 letters and digits whose ISO
/// 13616 check (mod 97) holds.
pub fn valid_iban(s: &[u8]) -> bool {
    let n = s.iter().filter(|&&c| c != b' ').count();
    if !(15..=34).contains(&n) {
        return false;
    }
    // The country and check digits go to the end; letters count as
    // 10..35.
    let mut rem = 0u32;
    let mut step = |c: u8| -> bool {
        match c {
            b'0'..=b'9' => rem = (rem * 10 + u32::from(c - b'0')) % 97,
            b'A'..=b'Z' => rem = (rem * 100 + u32::from(c - b'A') + 10) % 97,
            _ => return false,
        }
        true
    };
    let mut chars = s.iter().copied().filter(|&c| c != b' ');
    let head: [u8; 4] = [
        chars.next().unwrap_or(0),
        chars.next().unwrap_or(0),
        chars.next().unwrap_or(0),
        chars.next().unwrap_or(0),
    ];
    for c in chars.chain(head) {
        if !step(c) {
            return false;
        }
    }
    rem == 1
}

/// Whether s, spaces and dashes aside, is 13 to 19 digits that pass the
/// Luhn check.
pub fn valid_card(s: &[u8]) -> bool {
    let mut ds = [0u8; 19];
    let mut n = 0;
    for &c in s {
        match c {
            b'0'..=b'9' => {
                if n == ds.len() {
                    return false;
                }
                ds[n] = c - b'0';
                n += 1;
            }
            b' ' | b'-' => {}
            _ => return false,
        }
    }
    if n < 13 {
        return false;
    }
    let mut sum = 0u32;
    for (i, &d) in ds[..n].iter().rev().enumerate() {
        let mut d = u32::from(d);
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// s quoted as Go's %q quotes it, for the printable and the common
/// cases: the unknown pattern in an error message.
fn go_quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            '\r' => q.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => q.push_str(&format!("\\x{:02x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}
