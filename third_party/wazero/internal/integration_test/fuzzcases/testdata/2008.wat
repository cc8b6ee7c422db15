(module
  (type (;0;) (func))
  (func (;0;) (type 0)
    (local f64 f64 f64 f64 f64 f64 f32)
    local.get 0
    local.get 0
    f64.le
    i32.const -538976289
    i32.clz
    i32.clz
    i32.rem_s
    unreachable
  )
  (export "" (func 0))
)
