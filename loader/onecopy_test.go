package loader

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// TestOneCopyIO checks wasmgate_input_read and wasmgate_output_set (the
// go-sdk patch, testdata/plugins/onecopy.wat): the input and the output
// in one copy each, never more than the input, and a range outside the
// module's memory traps the call, not the gateway; the next instance
// serves.
func TestOneCopyIO(t *testing.T) {
	p, inst := compile(t, "onecopy")
	big := strings.Repeat("0123456789abcdef", 4096) // 64 KiB
	for _, c := range []struct{ export, in, want string }{
		{"echo", `{"x":1}`, `{"x":1}`},
		{"echo", big, big},
		{"echo", "", ""},
		{"prefix", "abcdef", "abc"},
		{"prefix", "ab", "ab"},
		{"long", "hello", "hello"},
	} {
		out, err := inst.Call(context.Background(), c.export, []byte(c.in))
		if err != nil || string(out) != c.want {
			t.Errorf("%s(%.20q) = %.20q, %v; want %.20q", c.export, c.in, out, err, c.want)
		}
	}
	for _, export := range []string{"read_oob", "write_oob"} {
		inst, err := p.NewInstance(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, err = inst.Call(context.Background(), export, []byte(`{"x":1}`))
		var ce *abi.CallError
		if !errors.As(err, &ce) || !inst.Dead() {
			t.Errorf("%s: %v (dead %v), want a trap that kills the instance", export, err, inst.Dead())
		}
		inst.Close(context.Background())
	}
	inst2, err := p.NewInstance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer inst2.Close(context.Background())
	if out, err := inst2.Call(context.Background(), "echo", []byte("after")); err != nil || string(out) != "after" {
		t.Errorf("echo after the traps: %q, %v", out, err)
	}
}
