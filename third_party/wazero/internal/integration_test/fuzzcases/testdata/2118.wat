(module
  (type (;0;) (func (param i32 i32 i32 i32 i32 i64 i32 i32 i32)))
  (func (;0;) (type 0) (param i32 i32 i32 i32 i32 i64 i32 i32 i32)
    (local v128)
    f64.const -0x1.34dbf7bd7ba6p+771 (;=-14984674124766183000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000;)
    i32.const 0
    i64.const 0
    i64.store offset=72462
    local.get 7
    i64.const 0
    i64.store offset=72462
    i32.const 0
    i64.const 0
    i64.store offset=6876
    i32.const 1
    i64.const 1
    i64.store offset=31806 align=1
    i32.const 1
    i64.const 1
    i64.store offset=72462
    local.get 7
    i64.const 0
    i64.store offset=72462
    i32.const 1
    i64.const 1
    i64.store offset=72462
    i32.const -8476938
    memory.grow
    memory.grow
    i32.ctz
    local.get 7
    i64.const 0
    i64.store offset=72462
    unreachable
  )
  (memory (;0;) 2 7)
  (export "" (func 0))
)
