;; fork calls itself twice with n-1 until n is zero: 2^n calls and no loop,
;; so only a termination check at function entries can stop it.
(module
  (func $fork (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (call $fork (i32.sub (local.get $n) (i32.const 1)))
    (call $fork (i32.sub (local.get $n) (i32.const 1))))
  (func (export "fork") (param i32)
    (call $fork (local.get 0))))
