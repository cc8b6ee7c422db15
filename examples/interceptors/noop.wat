;; noop is a wasmgate example interceptor in WebAssembly text, with no
;; SDK: the interceptor ABI and the Extism kernel's functions, nothing
;; else (docs/interceptors.md). It answers continue in both phases without
;; reading its input: the cheapest interceptor there is, the measure of
;; what the gateway's hook costs.
;;
;; scripts/build-plugins.sh assembles it with wabt's wat2wasm:
;;
;;   wat2wasm noop.wat -o noop.wasm      (Debian: apt-get install wabt)
;;
;; Every export takes nothing and returns an i32 (0: success). The output
;; is a block of the Extism kernel's memory, filled through the functions
;; of the import module extism:host/env.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)
  (data (i32.const 0) "{\"decision\":\"continue\"}")

  ;; $output copies [$ptr, $ptr+$len), $len >= 8, into a new kernel block
  ;; in 8-byte stores (the last one overlapping the one before) and makes
  ;; it the export's output; 1 if the block could not be allocated.
  (func $output (param $ptr i32) (param $len i32) (result i32)
    (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $len))))
    (if (i64.eqz (local.get $block)) (then (return (i32.const 1))))
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
    (call $output_set (local.get $block) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  (func (export "intercept_request") (result i32)
    (call $output (i32.const 0) (i32.const 23)))

  (func (export "intercept_response") (result i32)
    (call $output (i32.const 0) (i32.const 23)))
)
