//! JSON, as much as the redactor needs: redacting a result's strings in
//! place without decoding it (`Redactor::redact_json`, the Go example's
//! RedactJSON byte for byte), and reading the input's members and the
//! config's patterns (`Reader`).

use crate::redact::{Redacted, Redactor, Scratch};
use crate::swar::{index_byte, index_either, scan_body};

/// The error of a result with a string that does not end.
pub const UNTERMINATED: &str = "redact: unterminated string in the result";

impl Redactor {
    /// Redacts raw, a JSON value (a result), without decoding it: every
    /// string in it except object keys is searched, and a match replaced
    /// in place; everything else is copied as it is. It appends the
    /// redacted value to out and returns true, or leaves out as it was
    /// and returns false when nothing matched.
    ///
    /// An escape (\n, \", ...) is a boundary no pattern spans, as the
    /// character it stands for is in none of the patterns; a string with
    /// a \u escape, which may hide a character that is, is decoded,
    /// redacted and encoded again (as Go's encoding/json decodes and
    /// encodes it, without escaping <, > and &).
    pub fn redact_json(&self, raw: &[u8], out: &mut Vec<u8>, s: &mut Scratch) -> Result<bool, String> {
        let mut changed = false;
        let mut last = 0; // raw[last..] is not in out yet
        let mut i = 0;
        while i < raw.len() {
            let start = match index_byte(&raw[i..], b'"') {
                Some(k) => i + k,
                None => break,
            };
            // The body up to its end or its first escape, its digits
            // and its first '@' in one pass; the rest of one with
            // escapes in another.
            let (plain_end, digits, first_at) = scan_body(raw, start + 1);
            let (end, escaped, unicode) = match plain_end {
                Some(q) if raw[q] == b'"' => (q, false, false),
                Some(q) => match string_end(raw, q) {
                    Some(e) => e,
                    None => return Err(UNTERMINATED.to_string()),
                },
                None => return Err(UNTERMINATED.to_string()),
            };
            i = end + 1;
            if is_key(raw, i) {
                continue;
            }
            let body = &raw[start + 1..end];
            let repl: &[u8] = if unicode {
                s.decoded.clear();
                let mut decoded = std::mem::take(&mut s.decoded);
                let ok = unquote(body, &mut decoded);
                let red = if ok { self.redact(&decoded, s) } else { Redacted::Unchanged };
                s.decoded = decoded;
                if !ok {
                    return Err(format!("redact: invalid JSON string in the result at offset {}", start));
                }
                let text: &[u8] = match red {
                    Redacted::Unchanged => continue,
                    Redacted::Emails => &s.emails,
                    Redacted::Numbers => &s.numbers,
                };
                s.body.clear();
                quote(text, &mut s.body);
                &s.body
            } else if escaped {
                if !self.redact_escaped(body, s) {
                    continue;
                }
                &s.body
            } else {
                let first_at = first_at.map(|a| a - (start + 1));
                match self.redact_known(body, digits, first_at, s).text(s) {
                    None => continue,
                    Some(text) => text,
                }
            };
            if !changed {
                out.reserve(raw.len() + raw.len() / 4);
                changed = true;
            }
            out.extend_from_slice(&raw[last..start + 1]);
            out.extend_from_slice(repl);
            last = end;
        }
        if changed {
            out.extend_from_slice(&raw[last..]);
        }
        Ok(changed)
    }

    /// Redacts a string body holding escapes but no \u into s.body: the
    /// text between escapes is redacted piece by piece, each escape kept.
    /// False, and s.body undefined, when nothing matched.
    fn redact_escaped(&self, body: &[u8], s: &mut Scratch) -> bool {
        let mut out = std::mem::take(&mut s.body);
        out.clear();
        let mut last = 0;
        let mut changed = false;
        let mut p = 0;
        while p <= body.len() {
            let k = index_byte(&body[p..], b'\\').unwrap_or(body.len() - p);
            let piece = &body[p..p + k];
            if let Some(red) = self.redact(piece, s).text(s) {
                out.extend_from_slice(&body[last..p]);
                out.extend_from_slice(red);
                last = p + k;
                changed = true;
            }
            p += k + 2; // past the escape
        }
        if changed {
            out.extend_from_slice(&body[last..]);
        }
        s.body = out;
        changed
    }
}

/// The index of the quote that ends the string whose body starts at
/// raw[p], and whether the body has escapes, \u ones among them; None
/// when it does not end.
fn string_end(raw: &[u8], mut p: usize) -> Option<(usize, bool, bool)> {
    let mut escaped = false;
    let mut unicode = false;
    while p < raw.len() {
        p += index_either(&raw[p..], b'"', b'\\')?;
        if raw[p] == b'"' {
            return Some((p, escaped, unicode));
        }
        escaped = true;
        if p + 1 < raw.len() && raw[p + 1] == b'u' {
            unicode = true;
        }
        p += 2;
    }
    None
}

/// Whether the string that ended before raw[p] is an object key: the
/// next character that is not white space is ':'.
fn is_key(raw: &[u8], p: usize) -> bool {
    for &c in &raw[p.min(raw.len())..] {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b':' => return true,
            _ => return false,
        }
    }
    false
}

/// Appends the JSON string body (between the quotes) decoded to out, as
/// Go's encoding/json decodes it: a lone or broken surrogate, and a byte
/// that is not UTF-8, become U+FFFD. False if it is not a valid JSON
/// string body (a control character, an unknown escape).
pub fn unquote(body: &[u8], out: &mut Vec<u8>) -> bool {
    out.reserve(body.len());
    let mut r = 0;
    while r < body.len() {
        let c = body[r];
        if c == b'\\' {
            let e = match body.get(r + 1) {
                Some(&e) => e,
                None => return false,
            };
            let short = match e {
                b'"' | b'\\' | b'/' => e,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => 0,
                _ => return false,
            };
            if e != b'u' {
                out.push(short);
                r += 2;
                continue;
            }
            let mut rr = match u4(&body[r..]) {
                Some(rr) => rr,
                None => return false,
            };
            r += 6;
            if (0xd800..0xe000).contains(&rr) {
                // A pair, high then low; anything else is U+FFFD and the
                // next escape is read on its own.
                if let Some(lo) = u4(&body[r..]) {
                    if (0xd800..0xdc00).contains(&rr) && (0xdc00..0xe000).contains(&lo) {
                        r += 6;
                        push_char(out, 0x10000 + ((rr - 0xd800) << 10) + (lo - 0xdc00));
                        continue;
                    }
                }
                rr = 0xfffd;
            }
            push_char(out, rr);
            continue;
        }
        if c < 0x20 || c == b'"' {
            return false;
        }
        if c < 0x80 {
            out.push(c);
            r += 1;
            continue;
        }
        let n = utf8_len(&body[r..]);
        if n == 0 {
            out.extend_from_slice("\u{fffd}".as_bytes());
            r += 1;
        } else {
            out.extend_from_slice(&body[r..r + n]);
            r += n;
        }
    }
    true
}

/// The code unit of the \uXXXX escape b starts with.
fn u4(b: &[u8]) -> Option<u32> {
    if b.len() < 6 || b[0] != b'\\' || b[1] != b'u' {
        return None;
    }
    let mut v = 0;
    for &c in &b[2..6] {
        v = v * 16
            + match c {
                b'0'..=b'9' => u32::from(c - b'0'),
                b'a'..=b'f' => u32::from(c - b'a') + 10,
                b'A'..=b'F' => u32::from(c - b'A') + 10,
                _ => return None,
            };
    }
    Some(v)
}

fn push_char(out: &mut Vec<u8>, r: u32) {
    let c = char::from_u32(r).unwrap_or('\u{fffd}');
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// The length of the UTF-8 sequence b starts with (a byte of 0x80 or
/// more), 0 if it is not a valid one: Go's utf8.DecodeRune's RuneError
/// of width 1.
fn utf8_len(b: &[u8]) -> usize {
    let (n, lo, hi) = match b[0] {
        0xc2..=0xdf => (2, 0x80, 0xbf),
        0xe0 => (3, 0xa0, 0xbf),
        0xe1..=0xec | 0xee..=0xef => (3, 0x80, 0xbf),
        0xed => (3, 0x80, 0x9f),
        0xf0 => (4, 0x90, 0xbf),
        0xf1..=0xf3 => (4, 0x80, 0xbf),
        0xf4 => (4, 0x80, 0x8f),
        _ => return 0,
    };
    if b.len() < n || b[1] < lo || b[1] > hi {
        return 0;
    }
    if b[2..n].iter().any(|&c| !(0x80..=0xbf).contains(&c)) {
        return 0;
    }
    n
}

/// Appends s, valid UTF-8, as the body of a JSON string, as Go's
/// encoding/json writes it with SetEscapeHTML(false): \", \\, \b, \f,
/// \n, \r, \t, other control characters as \u00xx, U+2028 and U+2029
/// escaped, everything else as it is.
pub fn quote(s: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 8);
    let mut start = 0;
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            8 => Some(b"\\b"),
            12 => Some(b"\\f"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0xe2 if i + 2 < s.len() && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9) => {
                Some(if s[i + 2] == 0xa8 { b"\\u2028" } else { b"\\u2029" })
            }
            _ => None,
        };
        if let Some(esc) = esc {
            out.extend_from_slice(&s[start..i]);
            out.extend_from_slice(esc);
            i += if b == 0xe2 { 3 } else { 1 };
            start = i;
        } else if b < 0x20 {
            out.extend_from_slice(&s[start..i]);
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            i += 1;
            start = i;
        } else {
            i += 1;
        }
    }
    out.extend_from_slice(&s[start..]);
}

/// A reader of one JSON value: the input's members, the config's
/// patterns. It checks the syntax it walks over, not the encoding of
/// what is in strings.
pub struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

/// A JSON syntax error.
pub struct SyntaxError(pub usize);

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, i: 0 }
    }

    fn err<T>(&self) -> Result<T, SyntaxError> {
        Err(SyntaxError(self.i))
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    /// Whether the next token is the literal lit (null, true, false),
    /// consumed if so.
    pub fn literal(&mut self, lit: &[u8]) -> bool {
        self.ws();
        if self.b[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    /// Whether the rest is white space.
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    /// Reads an object, calling member with each key (raw, between its
    /// quotes) and the reader at its value, which member must read
    /// (value, string, ...).
    pub fn object(
        &mut self,
        mut member: impl FnMut(&[u8], &mut Reader<'a>) -> Result<(), SyntaxError>,
    ) -> Result<(), SyntaxError> {
        self.ws();
        if self.b.get(self.i) != Some(&b'{') {
            return self.err();
        }
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            let (s, e) = self.string_span()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return self.err();
            }
            self.i += 1;
            let key = &self.b[s..e];
            member(key, self)?;
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return self.err(),
            }
        }
    }

    /// Reads an array, calling item with the reader at each item, which
    /// item must read.
    pub fn array(&mut self, mut item: impl FnMut(&mut Reader<'a>) -> Result<(), SyntaxError>) -> Result<(), SyntaxError> {
        self.ws();
        if self.b.get(self.i) != Some(&b'[') {
            return self.err();
        }
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return self.err(),
            }
        }
    }

    /// Reads a string and returns its body's span.
    fn string_span(&mut self) -> Result<(usize, usize), SyntaxError> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return self.err();
        }
        match string_end(self.b, self.i + 1) {
            Some((end, _, _)) => {
                let start = self.i + 1;
                self.i = end + 1;
                Ok((start, end))
            }
            None => self.err(),
        }
    }

    /// Reads a string and returns it decoded; None if it is not a string.
    pub fn string(&mut self) -> Result<Option<String>, SyntaxError> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return Ok(None);
        }
        let at = self.i;
        let (s, e) = self.string_span()?;
        let mut out = Vec::with_capacity(e - s);
        if !unquote(&self.b[s..e], &mut out) {
            return Err(SyntaxError(at));
        }
        // unquote leaves valid UTF-8 only.
        Ok(Some(String::from_utf8(out).unwrap_or_default()))
    }

    /// Reads any value and returns its span.
    pub fn value(&mut self) -> Result<&'a [u8], SyntaxError> {
        self.ws();
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'{') => self.object(|_, r| r.value().map(|_| ()))?,
            Some(b'[') => self.array(|r| r.value().map(|_| ()))?,
            Some(b'"') => {
                self.string_span()?;
            }
            Some(_) => {
                let n = self.b[self.i..]
                    .iter()
                    .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.'))
                    .count();
                if n == 0 {
                    return self.err();
                }
                self.i += n;
            }
            None => return self.err(),
        }
        Ok(&self.b[start..self.i])
    }
}
