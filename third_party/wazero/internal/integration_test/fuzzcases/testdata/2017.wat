(module
  (func
    i64.const 1
    call 1
    i64.div_s
    i64.div_s
    unreachable
  )
  (func (result i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    i64.const -1
    i64.const 1
    i64.const 0
    i64.const 0
    i64.const 0
    i64.const 1
    i64.const 1
    i64.const 0
    i64.const 1
    i64.const 0
    i64.const 0
    i64.const 0
    i64.const -1
    i64.const 0
    i64.const 0
    i64.const 1
  )
  (export "" (func 0))
)
