(module
  (func (export "infinite_loop")
    (loop
      br 0
    )
  )
)
