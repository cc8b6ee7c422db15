(module
  (table (;0;) 34 553 externref)
  (global (;0;) (mut i32) i32.const 1000)
  (export "" (table 0))
  (elem (;0;) (i32.const -1) externref (ref.null extern) (ref.null extern))
)
