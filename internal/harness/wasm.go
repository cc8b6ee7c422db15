package harness

// A tiny WebAssembly encoder, for tests that need modules with given
// imports and exports and nothing else.

// WasmModule encodes a module importing each of imports (module, name)
// as a function () -> (), and exporting a function () -> i32 returning 0
// under each name of exports.
func WasmModule(imports [][2]string, exports []string) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	section := func(id byte, body []byte) {
		out = append(out, id)
		out = append(out, uleb(len(body))...)
		out = append(out, body...)
	}
	vec := func(n int, items ...[]byte) []byte {
		b := uleb(n)
		for _, it := range items {
			b = append(b, it...)
		}
		return b
	}
	str := func(s string) []byte { return append(uleb(len(s)), s...) }
	// type 0: () -> (); type 1: () -> i32
	section(1, vec(2, []byte{0x60, 0, 0}, []byte{0x60, 0, 1, 0x7f}))
	var imps [][]byte
	for _, im := range imports {
		imps = append(imps, append(append(str(im[0]), str(im[1])...), 0x00, 0x00))
	}
	section(2, vec(len(imps), imps...))
	var funcs, exps, codes [][]byte
	for i, name := range exports {
		funcs = append(funcs, []byte{1})
		exps = append(exps, append(str(name), append([]byte{0x00}, uleb(len(imports)+i)...)...))
		codes = append(codes, []byte{4, 0, 0x41, 0, 0x0b}) // size 4: no locals, i32.const 0, end
	}
	section(3, vec(len(funcs), funcs...))
	section(7, vec(len(exps), exps...))
	section(10, vec(len(codes), codes...))
	return out
}

func uleb(n int) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if n == 0 {
			return b
		}
	}
}
