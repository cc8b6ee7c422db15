//! redact-rs is the redact example interceptor (examples/interceptors/redact)
//! written again in Rust, with std and no crates, against the Extism
//! kernel by hand: in the response phase it replaces e-mail addresses,
//! IBANs (checked with their mod-97 check digits) and card numbers
//! (checked with the Luhn algorithm) in every string of a result but
//! object keys with "[redacted email]", "[redacted iban]" or
//! "[redacted card]". It answers what the Go example answers, byte for
//! byte (the differential test, examples/interceptors/redact_rs_test.go,
//! runs both through the gateway's own interceptor runner).
//!
//! Its config (interceptors[].config), in the Extism config key
//! `wasmgate.interceptor.config` as JSON:
//!
//! ```text
//! patterns  which of email, iban and card to redact; all by default
//! ```
//!
//! It reads its input and writes its output in one copy each with
//! wasmgate's wasmgate_input_read and wasmgate_output_set
//! (third_party/extism-go-sdk/PATCHES.md), and reads its config once per
//! instance. Build it (scripts/build-plugins.sh does) with Debian's rustc
//! and libstd-rust-dev-wasm32, or any rustc with the wasm32-unknown-unknown
//! target:
//!
//! ```text
//! rustc --edition 2021 --target wasm32-unknown-unknown --crate-type cdylib \
//!     -C opt-level=3 -C codegen-units=1 -C lto -C panic=abort -C strip=symbols \
//!     -C target-feature=+bulk-memory,+simd128 \
//!     -o examples/interceptors/redact-rs.wasm examples/interceptors/redact-rs/src/lib.rs
//! ```
//!
//! Its speed: no pre-scan of the result (the Go example's MayHold; the
//! JSON pass finds nothing as fast), each string's end, digits and first
//! '@' found in one pass sixteen bytes at a time (swar.rs), the e-mail and
//! number scanners only over strings that may hold a match, the answer's
//! buffer sized once, the scanners' buffers reused from string to string.
//! The scanners' unit tests run on the host:
//! `rustc --edition 2021 --test src/lib.rs -o /tmp/redact-rs-test && /tmp/redact-rs-test`.

mod json;
mod redact;
mod swar;

use json::{Reader, SyntaxError};
use redact::{Redactor, Scratch};

// The Extism kernel, and wasmgate's one-copy input and output beside it.
#[link(wasm_import_module = "extism:host/env")]
extern "C" {
    fn input_length() -> u64;
    fn wasmgate_input_read(ptr: *mut u8, n: u32) -> u32;
    fn wasmgate_output_set(ptr: *const u8, n: u32) -> u32;
    fn alloc(n: u64) -> u64;
    fn free(offset: u64);
    fn length(offset: u64) -> u64;
    fn load_u8(offset: u64) -> u8;
    fn load_u64(offset: u64) -> u64;
    fn store_u8(offset: u64, v: u8);
    fn store_u64(offset: u64, v: u64);
    fn config_get(offset: u64) -> u64;
    fn error_set(offset: u64);
}

/// The Extism config key of the interceptor's config: section.
const CONFIG_KEY: &[u8] = b"wasmgate.interceptor.config";

const CONTINUE: &[u8] = br#"{"decision":"continue"}"#;

/// The answer of a redacted result, before the result itself.
const MODIFY: &[u8] = br#"{"decision":"modify","message":"redacted personal data","result":"#;

/// The redactor of the instance's config, read on its first call: an
/// instance's config does not change (a new config is a new module).
static mut REDACTOR: Option<Result<Redactor, String>> = None;

#[no_mangle]
pub extern "C" fn intercept_response() -> i32 {
    // SAFETY: a WebAssembly instance runs one call at a time, on one
    // thread.
    let r = match unsafe { REDACTOR.get_or_insert_with(redactor) } {
        Ok(r) => *r,
        Err(e) => return fail(e),
    };
    let input = input();
    let (method, result) = match read_input(&input) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    // Lists (tools/list, ...) are left as they are: their descriptions
    // are the servers' own, pinned by the lock file.
    let raw = match result {
        Some(raw) if !raw.is_empty() && !method.ends_with("/list") => raw,
        _ => return answer(CONTINUE),
    };
    let mut out = Vec::with_capacity(MODIFY.len() + raw.len() + raw.len() / 4 + 1);
    out.extend_from_slice(MODIFY);
    match r.redact_json(raw, &mut out, &mut Scratch::default()) {
        Err(e) => fail(&e),
        Ok(false) => answer(CONTINUE),
        Ok(true) => {
            out.push(b'}');
            answer(&out)
        }
    }
}

/// The redactor of the config: section.
fn redactor() -> Result<Redactor, String> {
    match config(CONFIG_KEY) {
        None => Ok(Redactor::ALL),
        Some(raw) => Redactor::new(&patterns(&raw)?),
    }
}

/// The patterns of the config (JSON), read as Go's encoding/json reads
/// them into the Go example's Config: a member "patterns" (its name in
/// any case), null or a list of strings (a null one is ""); other
/// members are ignored; null or "" is no config.
fn patterns(raw: &[u8]) -> Result<Vec<String>, String> {
    let mut r = Reader::new(raw);
    if raw.is_empty() || r.literal(b"null") && r.at_end() {
        return Ok(Vec::new());
    }
    let mut r = Reader::new(raw);
    let mut patterns = Vec::new();
    let mut wrong = None;
    let read = r.object(|key, r| {
        let mut name = Vec::new();
        if !json::unquote(key, &mut name) || !name.eq_ignore_ascii_case(b"patterns") {
            return r.value().map(|_| ());
        }
        patterns.clear();
        if r.literal(b"null") {
            return Ok(());
        }
        if r.array(|r| {
            match r.string()? {
                Some(s) => patterns.push(s),
                None if r.literal(b"null") => patterns.push(String::new()),
                None => {
                    wrong.get_or_insert("patterns holds something other than a string");
                    r.value()?;
                }
            }
            Ok(())
        })
        .is_err()
        {
            wrong.get_or_insert("patterns is not a list of strings");
            r.value()?;
        }
        Ok(())
    });
    match (read, wrong) {
        (Err(SyntaxError(at)), _) => Err(format!(
            "decode interceptor config: {} at offset {}",
            if at == 0 { "not a JSON object" } else { "invalid JSON" },
            at
        )),
        (Ok(()), _) if !r.at_end() => Err("decode interceptor config: invalid JSON after the object".to_string()),
        (Ok(()), Some(w)) => Err(format!("decode interceptor config: {}", w)),
        (Ok(()), None) => Ok(patterns),
    }
}

/// The input's method and result (None when absent or null).
fn read_input(input: &[u8]) -> Result<(String, Option<&[u8]>), String> {
    let mut method = String::new();
    let mut result = None;
    let mut r = Reader::new(input);
    r.object(|key, r| {
        match key {
            b"method" => match r.string()? {
                Some(s) => method = s,
                None => {
                    r.value()?;
                }
            },
            b"result" => {
                let v = r.value()?;
                result = if v == b"null" { None } else { Some(v) };
            }
            _ => {
                r.value()?;
            }
        }
        Ok(())
    })
    .map_err(|SyntaxError(at)| format!("decode interceptor input: invalid JSON at offset {}", at))?;
    Ok((method, result))
}

/// The export's input, in one copy.
fn input() -> Vec<u8> {
    // SAFETY: wasmgate_input_read writes at most n bytes at the pointer
    // and returns how many it wrote.
    unsafe {
        let n = input_length() as usize;
        let mut b = Vec::with_capacity(n);
        let got = wasmgate_input_read(b.as_mut_ptr(), n as u32) as usize;
        b.set_len(got.min(n));
        b
    }
}

/// Sets b as the export's output, in one copy, and returns 0.
fn answer(b: &[u8]) -> i32 {
    // SAFETY: the host reads b.len() bytes at b's pointer.
    if unsafe { wasmgate_output_set(b.as_ptr(), b.len() as u32) } != 0 {
        return fail("redact: out of memory for the answer");
    }
    0
}

/// Sets msg as the export's error and returns 1: the interceptor failed.
fn fail(msg: &str) -> i32 {
    // SAFETY: error_set takes a kernel block, which block makes.
    unsafe { error_set(block(msg.as_bytes())) };
    1
}

/// A new kernel block holding b.
fn block(b: &[u8]) -> u64 {
    // SAFETY: the kernel's functions check their offsets: a bad one traps
    // the instance, never writes outside the kernel's memory.
    unsafe {
        let off = alloc(b.len() as u64);
        if off == 0 {
            return 0;
        }
        let mut chunks = b.chunks_exact(8);
        let mut at = off;
        for c in &mut chunks {
            store_u64(at, u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
            at += 8;
        }
        for &c in chunks.remainder() {
            store_u8(at, c);
            at += 1;
        }
        off
    }
}

/// The value of the Extism config key, None when it is not set or empty.
fn config(key: &[u8]) -> Option<Vec<u8>> {
    // SAFETY: as in block.
    unsafe {
        let k = block(key);
        if k == 0 {
            return None;
        }
        let v = config_get(k);
        free(k);
        if v == 0 {
            return None;
        }
        let n = length(v) as usize;
        let mut b = Vec::with_capacity(n);
        let mut at = v;
        while b.len() + 8 <= n {
            b.extend_from_slice(&load_u64(at).to_le_bytes());
            at += 8;
        }
        while b.len() < n {
            b.push(load_u8(at));
            at += 1;
        }
        free(v);
        if b.is_empty() {
            None
        } else {
            Some(b)
        }
    }
}
