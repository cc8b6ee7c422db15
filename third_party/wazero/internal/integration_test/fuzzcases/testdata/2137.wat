(module
  (import "\00\00\00\00\00" "" (global (;0;) externref))
  (elem (;0;) externref (global.get 0))
)
