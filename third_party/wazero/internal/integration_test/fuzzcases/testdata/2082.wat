(module
  (type (;0;) (func (param i32 i32 i32 i32 i32 i32 i32 i32)))
  (func (;0;) (type 0) (param i32 i32 i32 i32 i32 i32 i32 i32)
    call 1
    i64.const -1
    f64.convert_i64_u
    i32.trunc_f64_s
    unreachable
  )
  (func (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
    i32.const 0
  )
  (export "" (func 0))
)
