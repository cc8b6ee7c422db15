(module
  (import "hh" "" (global (;0;) funcref))
  (elem (;0;) funcref (ref.null func) (ref.null func) (ref.null func) (global.get 0) (ref.null func))
)
