;; guard is a wasmgate example interceptor in WebAssembly text, with no
;; SDK (docs/interceptors.md): in the request phase it denies any call
;; whose arguments hold the bytes "rm -rf", and lets every other call go
;; on. It shows a real decision made in a second language; it is a
;; demonstration, not a defence ("rm  -rf" or "rm -r -f" pass), for which
;; see the argguard example.
;;
;; scripts/build-plugins.sh assembles it with wabt's wat2wasm:
;;
;;   wat2wasm guard.wat -o guard.wasm      (Debian: apt-get install wabt)
;;
;; The input is the intercepted call as JSON ({"phase":"request",
;; "method":"tools/call",...,"arguments":{...},...}). It copies the input
;; into its memory, finds the member "arguments" (the first occurrence of
;; the bytes "arguments": is it: every member before it is a string, and
;; a quote inside a string is escaped), finds the end of its value by
;; counting brackets outside strings, and searches the value for "rm -rf".
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))

  (memory (export "memory") 1)
  (data (i32.const 0) "{\"decision\":\"continue\"}")                                ;; 23 bytes
  (data (i32.const 64) "{\"decision\":\"deny\",\"message\":\"guard: the arguments hold rm -rf\"}") ;; 64 bytes
  (data (i32.const 192) "\"arguments\":")                                           ;; 12 bytes
  (data (i32.const 208) "rm -rf")                                                   ;; 6 bytes
  (data (i32.const 224) "guard: the input does not fit in memory")                  ;; 39 bytes

  ;; The input is copied to $in and up.
  (global $in i32 (i32.const 1024))

  ;; $output copies [$ptr, $ptr+$len), $len >= 8, into a new kernel block
  ;; and returns its offset, 0 if it could not be allocated.
  (func $block (param $ptr i32) (param $len i32) (result i64)
    (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $len))))
    (if (i64.eqz (local.get $block)) (then (return (i64.const 0))))
    (block $done
      (loop $copy
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $len)))
        (call $store_u64
          (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $copy)))
    (if (i32.lt_u (local.get $i) (local.get $len))
      (then
        (local.set $i (i32.sub (local.get $len) (i32.const 8)))
        (call $store_u64
          (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $ptr) (local.get $i))))))
    (local.get $block))

  ;; $output makes [$ptr, $ptr+$len) the export's output: 0, or 1 if it
  ;; could not be allocated.
  (func $output (param $ptr i32) (param $len i32) (result i32)
    (local $block i64)
    (local.set $block (call $block (local.get $ptr) (local.get $len)))
    (if (i64.eqz (local.get $block)) (then (return (i32.const 1))))
    (call $output_set (local.get $block) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  ;; $fail sets [$ptr, $ptr+$len) as the export's error and returns 1.
  (func $fail (param $ptr i32) (param $len i32) (result i32)
    (local $block i64)
    (local.set $block (call $block (local.get $ptr) (local.get $len)))
    (if (i64.ne (local.get $block) (i64.const 0)) (then (call $error_set (local.get $block))))
    (i32.const 1))

  ;; $read_input copies the input to $in, growing the memory as needed;
  ;; it returns the input's length, or -1 if the memory cannot grow.
  (func $read_input (result i32)
    (local $len i32) (local $pages i32) (local $i i32)
    (local.set $len (i32.wrap_i64 (call $input_length)))
    ;; pages needed: ($in + $len + 8 + 65535) / 65536
    (local.set $pages
      (i32.shr_u
        (i32.add (i32.add (global.get $in) (local.get $len)) (i32.const 65543))
        (i32.const 16)))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then
        (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
          (then (return (i32.const -1))))))
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
        (br $next)))
    (local.get $len))

  ;; $find returns the first position from $from of the $plen bytes at
  ;; $pat in [$in, $in+$end), or -1.
  (func $find (param $from i32) (param $end i32) (param $pat i32) (param $plen i32) (result i32)
    (local $i i32) (local $j i32)
    (local.set $i (local.get $from))
    (block $notfound
      (loop $at
        (br_if $notfound (i32.gt_u (i32.add (local.get $i) (local.get $plen)) (local.get $end)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $cmp
            (if (i32.eq (local.get $j) (local.get $plen)) (then (return (local.get $i))))
            (br_if $mismatch
              (i32.ne
                (i32.load8_u (i32.add (global.get $in) (i32.add (local.get $i) (local.get $j))))
                (i32.load8_u (i32.add (local.get $pat) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cmp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $at)))
    (i32.const -1))

  ;; $value_end returns the end of the object or array that starts at
  ;; $pos: after its closing bracket, counting brackets outside strings;
  ;; $len if it does not end.
  (func $value_end (param $pos i32) (param $len i32) (result i32)
    (local $c i32) (local $depth i32) (local $instr i32) (local $esc i32)
    (block $end
      (loop $next
        (br_if $end (i32.ge_u (local.get $pos) (local.get $len)))
        (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $pos))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (if (local.get $instr)
          (then
            (if (local.get $esc)
              (then (local.set $esc (i32.const 0)))
              (else
                (if (i32.eq (local.get $c) (i32.const 92)) ;; backslash
                  (then (local.set $esc (i32.const 1)))
                  (else
                    (if (i32.eq (local.get $c) (i32.const 34)) ;; quote
                      (then (local.set $instr (i32.const 0))))))))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 34)) (then (local.set $instr (i32.const 1)) (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91))) ;; { [
          (then (local.set $depth (i32.add (local.get $depth) (i32.const 1))) (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93))) ;; } ]
          (then
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (if (i32.eqz (local.get $depth)) (then (return (local.get $pos))))))
        (br $next)))
    (local.get $len))

  (func (export "intercept_request") (result i32)
    (local $len i32) (local $pos i32) (local $c i32) (local $end i32)
    (local.set $len (call $read_input))
    (if (i32.lt_s (local.get $len) (i32.const 0))
      (then (return (call $fail (i32.const 224) (i32.const 39)))))
    (local.set $pos (call $find (i32.const 0) (local.get $len) (i32.const 192) (i32.const 12)))
    (if (i32.lt_s (local.get $pos) (i32.const 0))
      (then (return (call $output (i32.const 0) (i32.const 23))))) ;; no arguments
    (local.set $pos (i32.add (local.get $pos) (i32.const 12)))
    ;; skip white space
    (block $ws
      (loop $skip
        (br_if $ws (i32.ge_u (local.get $pos) (local.get $len)))
        (local.set $c (i32.load8_u (i32.add (global.get $in) (local.get $pos))))
        (br_if $ws (i32.eqz (i32.or
          (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
          (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (br $skip)))
    (local.set $end (call $value_end (local.get $pos) (local.get $len)))
    (if (i32.ge_s (call $find (local.get $pos) (local.get $end) (i32.const 208) (i32.const 6)) (i32.const 0))
      (then (return (call $output (i32.const 64) (i32.const 64)))))
    (call $output (i32.const 0) (i32.const 23)))
)
