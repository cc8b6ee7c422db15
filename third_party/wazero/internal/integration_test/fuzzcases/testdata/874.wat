(module
  (table (;0;) 2 147 externref)
  (global (;0;) (mut i32) i32.const 1000)
  (export "" (table 0))
  (elem (;0;) (i32.const 0) externref (ref.null extern) (ref.null extern) (ref.null extern))
)
