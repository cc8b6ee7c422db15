;; onecopy is a test fixture of wasmgate's one-copy input and output
;; (wasmgate_input_read, wasmgate_output_set beside the Extism kernel's
;; functions, third_party/extism-go-sdk/PATCHES.md), in the sea-flea ABI.
;; scripts/build-plugins.sh assembles it with wabt's wat2wasm.
;;
;;   echo         the input, read and written in one copy each
;;   prefix       the input's first 3 bytes (wasmgate_input_read with n 3)
;;   long         the input, asking wasmgate_input_read for 64 KiB more
;;                than it is (it copies the input's length only)
;;   read_oob     wasmgate_input_read to an offset outside the memory: traps
;;   write_oob    wasmgate_output_set from outside the memory: traps
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "wasmgate_input_read" (func $input_read (param i32 i32) (result i32)))
  (import "extism:host/env" "wasmgate_output_set" (func $output_set (param i32 i32) (result i32)))

  (memory (export "memory") 2)

  (data (i32.const 0) "[{\"name\":\"echo\",\"description\":\"Echoes\"}]")

  ;; The input goes to [1024, 1024+n).
  (func (export "tools_information") (result i32)
    (call $output_set (i32.const 0) (i32.const 40)))

  (func (export "echo") (result i32)
    (local $n i32)
    (local.set $n (call $input_read (i32.const 1024) (i32.wrap_i64 (call $input_length))))
    (call $output_set (i32.const 1024) (local.get $n)))

  (func (export "prefix") (result i32)
    (local $n i32)
    (local.set $n (call $input_read (i32.const 1024) (i32.const 3)))
    (call $output_set (i32.const 1024) (local.get $n)))

  (func (export "long") (result i32)
    (local $n i32)
    (local.set $n (call $input_read (i32.const 1024)
      (i32.add (i32.wrap_i64 (call $input_length)) (i32.const 65536))))
    (call $output_set (i32.const 1024) (local.get $n)))

  (func (export "read_oob") (result i32)
    (drop (call $input_read (i32.const 0xfffffff0) (i32.wrap_i64 (call $input_length))))
    (i32.const 0))

  (func (export "write_oob") (result i32)
    (call $output_set (i32.const 0xfffffff0) (i32.const 100)))
)
