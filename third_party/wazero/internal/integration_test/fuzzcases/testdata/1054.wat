(module
  (type (;0;) (func))
  (func (;0;) (type 0)
    i32.const 1000
    i32.const 1000
    i32.const 1000
    memory.fill
  )
  (memory (;0;) 1 2)
  (start 0)
)
