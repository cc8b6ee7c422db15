(module
  (func call 1) ;; call the function below.
  (func ;; accessing the element/data instances in the subroutine.
    elem.drop 0
    data.drop 0
  )
  (start 0)
  (elem func)
  (data "x")
)
