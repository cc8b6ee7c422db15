;; hello.wat: a wasmgate plugin in WebAssembly text, with no SDK: the
;; sea-flea ABI and the Extism kernel's functions, nothing else.
;;
;;   wat2wasm hello.wat -o hello.wasm      (Debian: apt-get install wabt)
;;
;; It provides two tools: hello, which returns a greeting, and echo, which
;; returns the arguments object it gets, as text.
;;
;; Every export takes nothing and returns an i32 (0: success). Input and
;; output are blocks of the Extism kernel's memory, reached through the
;; functions of the import module extism:host/env; this module's own
;; memory holds only its constant strings.
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))

  (memory 1)
  ;; What tools_information returns: the JSON array of the tools.
  (data (i32.const 0) "[{\"name\":\"hello\",\"description\":\"Says hello\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"echo\",\"description\":\"Returns its arguments\",\"inputSchema\":{\"type\":\"object\"}}]")
  (data (i32.const 1024) "Hello from WebAssembly text!")

  ;; $output copies $len bytes at $ptr of this module's memory into a new
  ;; kernel block and makes it the export's output.
  (func $output (param $ptr i32) (param $len i32)
    (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $len))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (call $output_set (local.get $block) (i64.extend_i32_u (local.get $len))))

  ;; The gateway calls tools_information once, when it loads the plugin.
  (func (export "tools_information") (result i32)
    (call $output (i32.const 0) (i32.const 163))
    (i32.const 0))

  ;; A tool is the export named after it; its output is the result's text.
  (func (export "hello") (result i32)
    (call $output (i32.const 1024) (i32.const 28))
    (i32.const 0))

  ;; echo copies its input (the call's arguments object) to its output.
  (func (export "echo") (result i32)
    (local $len i64) (local $block i64) (local $i i64)
    (local.set $len (call $input_length))
    (local.set $block (call $alloc (local.get $len)))
    (block $done
      (loop $copy
        (br_if $done (i64.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $block) (local.get $i))
          (call $input_load_u8 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $copy)))
    (call $output_set (local.get $block) (local.get $len))
    (i32.const 0))
)
