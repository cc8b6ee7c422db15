(module
  (func (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    i32.const 1
    if (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)  ;; label = @1
      i32.const 1
      if (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)  ;; label = @2
        i32.const -2097021696
        i32.const -41711741
        i32.const -2021162109
        i32.const -1694498681
        i32.const 385876477
        i32.const -41712643
        i32.const -2021424383
        i32.const 8882055
        i32.const -2080531712
        i32.const 33684867
        i32.const 8882051
        i32.const -2080531712
        i32.const -1694433917
        i32.const -41712643
        i32.const -2021424383
        i32.const -2021161081
        i32.const -40173568
        i32.const -2021162109
        i32.const 33391491
      else
        i32.const -1694498681
        i32.const -41712643
        i32.const -2088533247
        i32.const -2088566275
        i32.const -2021161085
        i32.const 34695
        i32.const -2088501861
        i32.const -2097020419
        i32.const 34695
        i32.const -2088501861
        i32.const -40173315
        i32.const 33391491
        i32.const -2021162109
        i32.const 8882055
        i32.const -2080531712
        i32.const -2097021565
        i32.const -2021161085
        i32.const 34695
        i32.const -2088501861
      end
    else
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
      i32.const 0
    end
  )
  (export "" (func 0))
)
