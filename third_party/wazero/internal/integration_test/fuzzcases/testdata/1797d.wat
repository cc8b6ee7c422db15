(module
  (type (;0;) (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))
  (type (;1;) (func (param i32 i32 i32 i32 i32 i32 i32 i32 i32 f64) (result i32)))
  (func (;0;) (type 0) (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32) (result i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (local f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 v128 v128)
    f32.const -nan:0x7bff96 (;=NaN;)
    f32.nearest
    local.tee 20
    f32.const nan (;=NaN;)
    local.get 20
    local.get 20
    f32.eq
    select
    f32.nearest
    local.tee 21
    f32.const nan (;=NaN;)
    local.get 21
    local.get 21
    f32.eq
    select
    f32.nearest
    local.tee 22
    f32.const nan (;=NaN;)
    local.get 22
    local.get 22
    f32.eq
    select
    f32.nearest
    local.tee 23
    f32.const nan (;=NaN;)
    local.get 23
    local.get 23
    f32.eq
    select
    f32.nearest
    local.tee 24
    f32.const nan (;=NaN;)
    local.get 24
    local.get 24
    f32.eq
    select
    f32.nearest
    local.tee 25
    f32.const nan (;=NaN;)
    local.get 25
    local.get 25
    f32.eq
    select
    f32.nearest
    local.tee 26
    f32.const nan (;=NaN;)
    local.get 26
    local.get 26
    f32.eq
    select
    f32.nearest
    local.tee 27
    f32.const nan (;=NaN;)
    local.get 27
    local.get 27
    f32.eq
    select
    f32.nearest
    local.tee 28
    f32.const nan (;=NaN;)
    local.get 28
    local.get 28
    f32.eq
    select
    f32.nearest
    local.tee 29
    f32.const nan (;=NaN;)
    local.get 29
    local.get 29
    f32.eq
    select
    f32.nearest
    local.tee 30
    f32.const nan (;=NaN;)
    local.get 30
    local.get 30
    f32.eq
    select
    f32.nearest
    local.tee 31
    f32.const nan (;=NaN;)
    local.get 31
    local.get 31
    f32.eq
    select
    f32.nearest
    local.tee 32
    f32.const nan (;=NaN;)
    local.get 32
    local.get 32
    f32.eq
    select
    f32.nearest
    local.tee 33
    f32.const nan (;=NaN;)
    local.get 33
    local.get 33
    f32.eq
    select
    f32.nearest
    local.tee 34
    f32.const nan (;=NaN;)
    local.get 34
    local.get 34
    f32.eq
    select
    f32.nearest
    local.tee 35
    f32.const nan (;=NaN;)
    local.get 35
    local.get 35
    f32.eq
    select
    f32.nearest
    local.tee 36
    f32.const nan (;=NaN;)
    local.get 36
    local.get 36
    f32.eq
    select
    f32.nearest
    local.tee 37
    f32.const nan (;=NaN;)
    local.get 37
    local.get 37
    f32.eq
    select
    f32.nearest
    local.tee 38
    f32.const nan (;=NaN;)
    local.get 38
    local.get 38
    f32.eq
    select
    f32.nearest
    local.tee 39
    f32.const nan (;=NaN;)
    local.get 39
    local.get 39
    f32.eq
    select
    f32.nearest
    local.tee 40
    f32.const nan (;=NaN;)
    local.get 40
    local.get 40
    f32.eq
    select
    f32.nearest
    local.tee 41
    f32.const nan (;=NaN;)
    local.get 41
    local.get 41
    f32.eq
    select
    f32.nearest
    local.tee 42
    f32.const nan (;=NaN;)
    local.get 42
    local.get 42
    f32.eq
    select
    f32.nearest
    local.tee 43
    f32.const nan (;=NaN;)
    local.get 43
    local.get 43
    f32.eq
    select
    f32.nearest
    local.tee 44
    f32.const nan (;=NaN;)
    local.get 44
    local.get 44
    f32.eq
    select
    f32.nearest
    local.tee 45
    f32.const nan (;=NaN;)
    local.get 45
    local.get 45
    f32.eq
    select
    f32.nearest
    local.tee 46
    f32.const nan (;=NaN;)
    local.get 46
    local.get 46
    f32.eq
    select
    f32.nearest
    local.tee 47
    f32.const nan (;=NaN;)
    local.get 47
    local.get 47
    f32.eq
    select
    f32.nearest
    local.tee 48
    f32.const nan (;=NaN;)
    local.get 48
    local.get 48
    f32.eq
    select
    f32.nearest
    local.tee 49
    f32.const nan (;=NaN;)
    local.get 49
    local.get 49
    f32.eq
    select
    f32.nearest
    local.tee 50
    f32.const nan (;=NaN;)
    local.get 50
    local.get 50
    f32.eq
    select
    f32.nearest
    local.tee 51
    f32.const nan (;=NaN;)
    local.get 51
    local.get 51
    f32.eq
    select
    f32.nearest
    local.tee 52
    f32.const nan (;=NaN;)
    local.get 52
    local.get 52
    f32.eq
    select
    f32.nearest
    local.tee 53
    f32.const nan (;=NaN;)
    local.get 53
    local.get 53
    f32.eq
    select
    f32.nearest
    local.tee 54
    f32.const nan (;=NaN;)
    local.get 54
    local.get 54
    f32.eq
    select
    f32.nearest
    local.tee 55
    f32.const nan (;=NaN;)
    local.get 55
    local.get 55
    f32.eq
    select
    f32.nearest
    local.tee 56
    f32.const nan (;=NaN;)
    local.get 56
    local.get 56
    f32.eq
    select
    f32.nearest
    local.tee 57
    f32.const nan (;=NaN;)
    local.get 57
    local.get 57
    f32.eq
    select
    f32.nearest
    local.tee 58
    f32.const nan (;=NaN;)
    local.get 58
    local.get 58
    f32.eq
    select
    f32.nearest
    local.tee 59
    f32.const nan (;=NaN;)
    local.get 59
    local.get 59
    f32.eq
    select
    f32.nearest
    local.tee 60
    f32.const nan (;=NaN;)
    local.get 60
    local.get 60
    f32.eq
    select
    f32.nearest
    local.tee 61
    f32.const nan (;=NaN;)
    local.get 61
    local.get 61
    f32.eq
    select
    f32.nearest
    local.tee 62
    f32.const nan (;=NaN;)
    local.get 62
    local.get 62
    f32.eq
    select
    f32.nearest
    local.tee 63
    f32.const nan (;=NaN;)
    local.get 63
    local.get 63
    f32.eq
    select
    f32.nearest
    local.tee 64
    f32.const nan (;=NaN;)
    local.get 64
    local.get 64
    f32.eq
    select
    f32.nearest
    local.tee 65
    f32.const nan (;=NaN;)
    local.get 65
    local.get 65
    f32.eq
    select
    f32.nearest
    local.tee 66
    f32.const nan (;=NaN;)
    local.get 66
    local.get 66
    f32.eq
    select
    f32.nearest
    local.tee 67
    f32.const nan (;=NaN;)
    local.get 67
    local.get 67
    f32.eq
    select
    f32.nearest
    local.tee 68
    f32.const nan (;=NaN;)
    local.get 68
    local.get 68
    f32.eq
    select
    f32.nearest
    local.tee 69
    f32.const nan (;=NaN;)
    local.get 69
    local.get 69
    f32.eq
    select
    f32.nearest
    local.tee 70
    f32.const nan (;=NaN;)
    local.get 70
    local.get 70
    f32.eq
    select
    f32.nearest
    local.tee 71
    f32.const nan (;=NaN;)
    local.get 71
    local.get 71
    f32.eq
    select
    f32.nearest
    local.tee 72
    f32.const nan (;=NaN;)
    local.get 72
    local.get 72
    f32.eq
    select
    f32.nearest
    local.tee 73
    f32.const nan (;=NaN;)
    local.get 73
    local.get 73
    f32.eq
    select
    f32.nearest
    local.tee 74
    f32.const nan (;=NaN;)
    local.get 74
    local.get 74
    f32.eq
    select
    f32.nearest
    local.tee 75
    f32.const nan (;=NaN;)
    local.get 75
    local.get 75
    f32.eq
    select
    i64.trunc_sat_f32_s
    v128.const i32x4 0xffffffff 0xff80ffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xff04ffff 0x240affff
    i64x2.extend_low_i32x4_s
    i32.const 1010
    f64.const -0x1.6a624a6a6a6a6p-405 (;=-0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000017130922205442793;)
    i64.trunc_f64_s
    v128.const i32x4 0xffffa6a6 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xfffffffd 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -33554433
    v128.const i32x4 0xffffffff 0xffffffff 0xbffffdff 0xffffffff
    i32.const -8323073
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1073742337
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0x26ffffff 0x64643964 0x4a0a9664 0x90908090
    f32x4.sqrt
    local.tee 76
    v128.const i32x4 0x7fc00000 0x7fc00000 0x7fc00000 0x7fc00000
    local.get 76
    local.get 76
    f32x4.eq
    v128.bitselect
    i16x8.abs
    f32x4.nearest
    local.tee 77
    v128.const i32x4 0x7fc00000 0x7fc00000 0x7fc00000 0x7fc00000
    local.get 77
    local.get 77
    f32x4.eq
    v128.bitselect
    local.get 15
    v128.const i32x4 0xfffffff7 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1073742337
    v128.const i32x4 0xffffffff 0x80ffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    i32.extend16_s
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xfffffffd 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xfffffffd 0xffffffff 0xffffffff
    i8x16.all_true
    i32.lt_s
    v128.const i32x4 0xffffffff 0xffffff80 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xfdffffff 0xffffbfff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const -1
    v128.const i32x4 0xffffffff 0xffffffff 0xffffffff 0xffffffff
    i32.const 184549375
    local.get 16
    i64.extend_i32_u
    i64.extend16_s
    i64.extend16_s
    i64.extend16_s
    f32.convert_i64_s
    i32.reinterpret_f32
    global.get 0
    i32.xor
    global.set 0
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    drop
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    global.get 2
    v128.xor
    global.set 2
    drop
    i32.const -437970406
    i32.const -1595546139
    i32.const -437935968
    i32.const -1600085787
    i32.const -1952407392
    i32.const -2143219712
    i32.const -8354944
    i32.const 255
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
  )
  (global (;0;) (mut i32) i32.const 0)
  (global (;1;) (mut i32) i32.const 0)
  (global (;2;) (mut v128) v128.const i32x4 0x00000000 0x00000000 0x00000000 0x00000000)
  (global (;3;) (mut i64) i64.const 0)
  (global (;4;) (mut i32) i32.const 1000)
  (export "p" (func 0))
  (export "" (global 0))
  (export "2" (global 1))
  (export "3" (global 2))
  (export "4" (global 3))
)
