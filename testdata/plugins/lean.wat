;; lean is a test fixture: the cheapest plugin a tool call can run, written
;; in WebAssembly text against the Extism kernel only, in the sea-flea ABI.
;; scripts/build-plugins.sh assembles it with wabt's wat2wasm.
;;
;;   tool add {a: integer, b: integer} -> the sum as text
;;
;; It reads a flat JSON object: the members "a" and "b" must be integers
;; (from -999999999999999999 to 999999999999999999); other members are
;; skipped.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))

  (memory (export "memory") 1)

  ;; NUL-terminated texts.
  (data (i32.const 0) "[{\"name\":\"add\",\"description\":\"Adds two integers\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}]\00")
  (data (i32.const 512) "Invalid arguments: expected an object with integers a and b\00")

  ;; The input is copied to [$in, $in+$max_in); the output is formatted
  ;; backwards from $out_end.
  (global $in i32 (i32.const 1024))
  (global $max_in i32 (i32.const 16384))
  (global $out_end i32 (i32.const 17472))

  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; copy_out copies [ptr, ptr+len) to a new block of Extism memory and
  ;; returns its offset, or 0 if the block could not be allocated.
  (func $copy_out (param $ptr i32) (param $len i32) (result i64)
    (local $off i64) (local $i i32)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $len))))
    (if (i64.eqz (local.get $off)) (then (return (i64.const 0))))
    (block $done8
      (loop $next8
        (br_if $done8 (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $len)))
        (call $store_u64
          (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $off))

  ;; output sets [ptr, ptr+len) as the export's output: 0, or 1 if it
  ;; could not be allocated.
  (func $output (param $ptr i32) (param $len i32) (result i32)
    (local $off i64)
    (local.set $off (call $copy_out (local.get $ptr) (local.get $len)))
    (if (i64.eqz (local.get $off)) (then (return (i32.const 1))))
    (call $output_set (local.get $off) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  ;; fail sets the invalid-arguments message as the export's error and
  ;; returns 1.
  (func $fail (result i32)
    (local $off i64)
    (local.set $off (call $copy_out (i32.const 512) (call $strlen (i32.const 512))))
    (if (i64.ne (local.get $off) (i64.const 0)) (then (call $error_set (local.get $off))))
    (i32.const 1))

  (func $read_input (param $len i32)
    (local $i i32)
    (block $done8
      (loop $next8
        (br_if $done8 (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $len)))
        (i64.store (i32.add (global.get $in) (local.get $i))
          (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (i32.store8 (i32.add (global.get $in) (local.get $i))
          (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  (func $byte (param $pos i32) (result i32)
    (i32.load8_u (i32.add (global.get $in) (local.get $pos))))

  (func $skip_ws (param $pos i32) (param $len i32) (result i32)
    (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $pos) (local.get $len)))
        (local.set $c (call $byte (local.get $pos)))
        (br_if $done (i32.eqz (i32.or
          (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
          (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (br $next)))
    (local.get $pos))

  (func (export "tools_information") (result i32)
    (call $output (i32.const 0) (call $strlen (i32.const 0))))

  (func (export "add") (result i32)
    (local $len i32) (local $pos i32) (local $c i32)
    (local $key i32) (local $keylen i32)
    (local $neg i32) (local $digits i32) (local $n i64)
    (local $a i64) (local $b i64) (local $have i32)
    (local $sum i64) (local $mag i64) (local $p i32)

    (local.set $len (i32.wrap_i64 (call $input_length)))
    (if (i32.gt_u (local.get $len) (global.get $max_in)) (then (return (call $fail))))
    (call $read_input (local.get $len))

    (block $end
      (loop $scan
        (br_if $end (i32.ge_u (local.get $pos) (local.get $len)))
        (local.set $c (call $byte (local.get $pos)))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (br_if $scan (i32.ne (local.get $c) (i32.const 34))) ;; not a string

        ;; A string: remember its first byte and length.
        (local.set $key (i32.const 0))
        (local.set $keylen (i32.const 0))
        (block $strend
          (loop $str
            (if (i32.ge_u (local.get $pos) (local.get $len)) (then (return (call $fail))))
            (local.set $c (call $byte (local.get $pos)))
            (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
            (br_if $strend (i32.eq (local.get $c) (i32.const 34)))
            (if (i32.eq (local.get $c) (i32.const 92)) ;; backslash: skip the escaped byte
              (then (local.set $pos (i32.add (local.get $pos) (i32.const 1)))))
            (if (i32.eqz (local.get $keylen)) (then (local.set $key (local.get $c))))
            (local.set $keylen (i32.add (local.get $keylen) (i32.const 1)))
            (br $str)))

        ;; A member name is followed by a colon; only "a" and "b" matter.
        (local.set $pos (call $skip_ws (local.get $pos) (local.get $len)))
        (br_if $scan (i32.ge_u (local.get $pos) (local.get $len)))
        (br_if $scan (i32.ne (call $byte (local.get $pos)) (i32.const 58)))
        (local.set $pos (call $skip_ws (i32.add (local.get $pos) (i32.const 1)) (local.get $len)))
        (br_if $scan (i32.ne (local.get $keylen) (i32.const 1)))
        (br_if $scan (i32.and (i32.ne (local.get $key) (i32.const 97)) (i32.ne (local.get $key) (i32.const 98))))

        ;; Its value: an integer.
        (local.set $neg (i32.const 0))
        (local.set $digits (i32.const 0))
        (local.set $n (i64.const 0))
        (if (i32.and (i32.lt_u (local.get $pos) (local.get $len))
                     (i32.eq (call $byte (local.get $pos)) (i32.const 45)))
          (then
            (local.set $neg (i32.const 1))
            (local.set $pos (i32.add (local.get $pos) (i32.const 1)))))
        (block $numend
          (loop $num
            (br_if $numend (i32.ge_u (local.get $pos) (local.get $len)))
            (local.set $c (i32.sub (call $byte (local.get $pos)) (i32.const 48)))
            (br_if $numend (i32.gt_u (local.get $c) (i32.const 9)))
            (local.set $n (i64.add (i64.mul (local.get $n) (i64.const 10)) (i64.extend_i32_u (local.get $c))))
            (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
            (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
            (br $num)))
        (if (i32.or (i32.eqz (local.get $digits)) (i32.gt_u (local.get $digits) (i32.const 18)))
          (then (return (call $fail))))
        (if (i32.lt_u (local.get $pos) (local.get $len))
          (then
            (local.set $c (call $byte (local.get $pos)))
            ;; a fraction or an exponent: not an integer
            (if (i32.or (i32.eq (local.get $c) (i32.const 46))
                        (i32.or (i32.eq (local.get $c) (i32.const 101)) (i32.eq (local.get $c) (i32.const 69))))
              (then (return (call $fail))))))
        (if (local.get $neg) (then (local.set $n (i64.sub (i64.const 0) (local.get $n)))))
        (if (i32.eq (local.get $key) (i32.const 97))
          (then (local.set $a (local.get $n)) (local.set $have (i32.or (local.get $have) (i32.const 1))))
          (else (local.set $b (local.get $n)) (local.set $have (i32.or (local.get $have) (i32.const 2)))))
        (br $scan)))
    (if (i32.ne (local.get $have) (i32.const 3)) (then (return (call $fail))))

    ;; Format the sum backwards from $out_end.
    (local.set $sum (i64.add (local.get $a) (local.get $b)))
    (local.set $mag (local.get $sum))
    (if (i64.lt_s (local.get $sum) (i64.const 0))
      (then (local.set $mag (i64.sub (i64.const 0) (local.get $sum)))))
    (local.set $p (global.get $out_end))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p)
        (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $mag) (i64.const 10)))))
      (local.set $mag (i64.div_u (local.get $mag) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $mag) (i64.const 0))))
    (if (i64.lt_s (local.get $sum) (i64.const 0))
      (then
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (i32.store8 (local.get $p) (i32.const 45))))
    (call $output (local.get $p) (i32.sub (global.get $out_end) (local.get $p)))))
