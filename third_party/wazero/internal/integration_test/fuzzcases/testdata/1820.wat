(module
  (func (;0;)
    v128.const i32x4 0xffffffff 0x606060ff 0x60606060 0x60606060
    v128.const i32x4 0x60606060 0xffffff60 0xffffffff 0xffffffff
    i16x8.narrow_i32x4_u
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.get 1
    v128.xor
    global.set 1
    global.set 1

  )
  (global (;0;) (mut i32) i32.const 0)
  (global (;1;) (mut v128) v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000)
  (global (;2;) (mut i64) i64.const 0)
  (global (;3;) (mut i32) i32.const 1000)
  (export "" (func 0))
  (export "1" (global 0))
  (export "2" (global 1))
  (export "3" (global 2))
)
