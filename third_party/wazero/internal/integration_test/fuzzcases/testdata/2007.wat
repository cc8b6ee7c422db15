(module
  (func
    i32.const 92406676
    i32.extend8_s
    f32.convert_i32_u
    i32.trunc_f32_s
    unreachable
  )
  (export "" (func 0))
)
