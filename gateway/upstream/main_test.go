package upstream

import (
	"os"
	"testing"

	"github.com/wasmgate/wasmgate/internal/childproc"
)

func TestMain(m *testing.M) {
	childproc.Main() // the test binary is the shim of the upstream commands it starts, as wasmgate is
	os.Exit(m.Run())
}
