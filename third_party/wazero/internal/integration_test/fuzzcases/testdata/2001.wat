(module
  (type (;0;) (func))
  (func (;0;) (type 0)
    f32.const 0x1.123e18p+18 (;=280824.38;)
    i64.trunc_f32_s
    f64.convert_i64_s
    drop
  )
  (export "" (func 0))
)
