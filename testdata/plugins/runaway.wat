;; runaway is a test fixture: tools that never end on their own, in shapes a
;; termination check must catch, written in WebAssembly text against the
;; Extism kernel in the sea-flea ABI. scripts/build-plugins.sh assembles it
;; with wabt's wat2wasm.
;;
;;   spin   a bare loop: loop, br 0
;;   fork   a function that calls itself twice with n-1 from n = 62: 2^62
;;          calls, at most 62 deep, and no loop anywhere
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)

  (data (i32.const 0) "[{\"name\":\"spin\",\"description\":\"Loops forever\"},{\"name\":\"fork\",\"description\":\"Recurses 2^62 times without a loop\"}]\00")

  (func (export "tools_information") (result i32)
    (local $len i32) (local $off i64) (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (local.get $len))))
        (local.set $len (i32.add (local.get $len) (i32.const 1)))
        (br $next)))
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $len))))
    (if (i64.eqz (local.get $off)) (then (return (i32.const 1))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $output_set (local.get $off) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  (func (export "spin") (result i32)
    (loop $forever (br $forever))
    (i32.const 0))

  (func $fork (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (call $fork (i32.sub (local.get $n) (i32.const 1)))
    (call $fork (i32.sub (local.get $n) (i32.const 1))))

  (func (export "fork") (result i32)
    (call $fork (i32.const 62))
    (i32.const 0)))
