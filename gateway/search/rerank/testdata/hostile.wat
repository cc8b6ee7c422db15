;; hostile is a test fixture: a ranker (it exports rank) that misbehaves as
;; the first letter of its query says, written in WebAssembly text against
;; the Extism kernel. The tests assemble it with wabt's wat2wasm.
;;
;; The input is {"query":"<q>",...}: the query's first byte is at offset 10.
;;
;;   k  {"scores":[3,2,1]}: good, for three candidates
;;   w  {"scores":[1]}: the wrong length
;;   g  not JSON
;;   o  {"scores":[1e999,2,1]}: a number out of float64's range
;;   n  {"scores":[null,2,1]}: not a number
;;   m  {"other":[3,2,1]}: no scores
;;   b  70000 zero bytes: over the output bound
;;   e  an error it sets, and 1
;;   r  1, without an error
;;   t  a trap (unreachable)
;;   s  a loop that never ends
(module
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))

  (memory (export "memory") 2)

  (data (i32.const 0) "{\"scores\":[3,2,1]}")
  (data (i32.const 32) "{\"scores\":[1]}")
  (data (i32.const 64) "scores: 3, 2, 1")
  (data (i32.const 96) "{\"scores\":[1e999,2,1]}")
  (data (i32.const 128) "{\"scores\":[null,2,1]}")
  (data (i32.const 160) "{\"other\":[3,2,1]}")
  (data (i32.const 192) "the ranker refused")

  ;; copy [ptr, ptr+len) of this module's memory to an Extism block.
  (func $block (param $ptr i32) (param $len i32) (result i64)
    (local $off i64) (local $i i32)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $len))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $off))

  (func $out (param $ptr i32) (param $len i32) (result i32)
    (call $output_set (call $block (local.get $ptr) (local.get $len)) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  (func (export "rank") (result i32)
    (local $c i32)
    (local.set $c (call $input_load_u8 (i64.const 10)))
    (if (i32.eq (local.get $c) (i32.const 107)) (then (return (call $out (i32.const 0) (i32.const 18)))))   ;; k
    (if (i32.eq (local.get $c) (i32.const 119)) (then (return (call $out (i32.const 32) (i32.const 14)))))  ;; w
    (if (i32.eq (local.get $c) (i32.const 103)) (then (return (call $out (i32.const 64) (i32.const 15)))))  ;; g
    (if (i32.eq (local.get $c) (i32.const 111)) (then (return (call $out (i32.const 96) (i32.const 22)))))  ;; o
    (if (i32.eq (local.get $c) (i32.const 110)) (then (return (call $out (i32.const 128) (i32.const 21))))) ;; n
    (if (i32.eq (local.get $c) (i32.const 109)) (then (return (call $out (i32.const 160) (i32.const 17))))) ;; m
    (if (i32.eq (local.get $c) (i32.const 98)) (then                                                        ;; b
      (call $output_set (call $alloc (i64.const 70000)) (i64.const 70000))
      (return (i32.const 0))))
    (if (i32.eq (local.get $c) (i32.const 101)) (then                                                       ;; e
      (call $error_set (call $block (i32.const 192) (i32.const 18)))
      (return (i32.const 1))))
    (if (i32.eq (local.get $c) (i32.const 114)) (then (return (i32.const 1))))                              ;; r
    (if (i32.eq (local.get $c) (i32.const 116)) (then (unreachable)))                                       ;; t
    (if (i32.eq (local.get $c) (i32.const 115)) (then (loop $forever (br $forever))))                       ;; s
    (i32.const 0)))
