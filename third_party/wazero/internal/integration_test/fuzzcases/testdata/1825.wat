(module
  (type (;0;) (func (result f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64)))
  (type (;1;) (func))
  (type (;2;) (func))
  (func (;0;) (type 0) (result f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64)
    f64.const -nan:0xfffffffffffff (;=NaN;)
    f64.const -nan:0xfffffffffffff (;=NaN;)
    f64.const -nan:0xfffffffffffff (;=NaN;)
    f64.const -nan:0xfffffffffffff (;=NaN;)
    f64.const 0x1.72727ffffffffp-397 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004483097142929414;)
    f64.const 0x1.7272727272727p-397 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004483094640249093;)
    f64.const 0x1.f272727272727p-1008 (;=0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007098121730803434;)
    f64.const 0x0p+0 (;=0;)
    f64.const -nan:0xfff5700000101 (;=NaN;)
    f64.const -0x1.7ffffffffffffp+1011 (;=-32916744412762127000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000;)
    f64.const -nan:0xfffffffffffff (;=NaN;)
    f64.const -0x1.fffffffffffffp+864 (;=-246006311446272400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000;)
    f64.const 0x1.72727272727f4p-397 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004483094640249234;)
    f64.const -nan:0xfffff27272727 (;=NaN;)
    f64.const 0x1.7272727ffffffp-397 (;=0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000044830946500251875;)
    f64.const 0x1.7272727272727p-397 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004483094640249093;)
  )
  (func (;2;) (type 0) (result f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64)
    v128.const i32x4 0x2e2e2e60 0x00ffffd2 0xffffffff 0xffffffff
    f64.const 0x1.fffffffffep-1035
    f64x2.replace_lane 0
    call 0
    f64x2.splat
    i32x4.extract_lane 0
    ref.null extern
    call 0
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    drop
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    drop
    global.get 5
    i32.xor
    global.set 5
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    i64.reinterpret_f64
    global.get 4
    i64.xor
    global.set 4
    global.get 6
    v128.xor
    global.set 6
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
    f64.const 0x0p+0 (;=0;)
  )
  (table (;0;) 1000 1000 externref)
  (table (;1;) 996 996 externref)
  (memory (;0;) 0 6)
  (global (;0;) (mut i32) i32.const 1768515945)
  (global (;1;) (mut funcref) ref.func 0)
  (global (;2;) (mut f64) f64.const -nan:0xb76ffffffffff (;=NaN;))
  (global (;3;) (mut f64) f64.const 0x1.fffffffffep-1035 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000005432309224866;))
  (global (;4;) (mut i64) i64.const 0)
  (global (;5;) (mut i32) i32.const 0)
  (global (;6;) (mut v128) v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000)
  (global (;7;) (mut i32) i32.const 1000)
  (export "" (func 1))
)
