(module
  (func (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i32 i64 i64) (result f64 f32 i64 i64 i64)
    (local f64 f64 f64)
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 0
    local.get 6
    local.set 12
    f32.const 0x1.f93f78p+8 (;=505.24792;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 15
    i32.const 1
    f32.reinterpret_i32
    i64.trunc_f32_u
    local.set 12
    f32.const 0x1.0b4948p-118 (;=0.000000000000000000000000000000000003141935;)
    i64.trunc_f32_s
    local.set 12
    f32.const 0x0p+0 (;=0;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 12
    f32.const -0x1.494948p-54 (;=-0.000000000000000071402575;)
    i64.trunc_f32_u
    local.set 12
    f32.const 0x0p+0 (;=0;)
    i64.trunc_f32_u
    local.set 15
    global.get 0
    global.set 0
    f64.const 0x1.f0f280f0f280fp-783 (;=0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000038157836926462445;)
    f32.const 0
    i64.const 0
    i64.const 0
    i64.const 0
  )
  (global (;0;) (mut i64) i64.const 0)
  (export "" (func 0))
)
