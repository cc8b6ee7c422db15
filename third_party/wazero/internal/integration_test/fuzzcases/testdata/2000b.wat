(module
  (type (;0;) (func (result i32)))
  (func (;0;) (type 0) (result i32)
    f32.const -0x1.8ef02cp+57 (;=-224582230000000000;)
    i64.trunc_f32_s
    f64.reinterpret_i64
    i64.trunc_f64_u
    i32.wrap_i64
  )
  (export "" (func 0))
)
