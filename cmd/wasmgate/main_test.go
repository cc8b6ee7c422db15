package main

// The end-to-end tests in this package drive the real wasmgate binary,
// built once by TestMain (with -race when the tests run with -race, so
// races in the server fail the run) through internal/harness, serving real
// WASM modules built from examples/plugins and testdata/plugins by
// `make plugins` (scripts/build-plugins.sh).
//
// They mostly wait (on gateways, child processes, npm servers, Chromium,
// timers), so each calls t.Parallel first (make test runs TEST_PARALLEL
// of them at once), with its own temporary folders, ports from
// harness.FreePort and environment passed to the gateway (Options.Env),
// never t.Setenv. The few that are not parallel say why at the top: they
// set the environment, or measure against the clock as the test sees it.
// A timeout a test sets only to bound a hang is generous: a parallel run
// on two cores under -race is several times slower than one test alone.

import (
	"fmt"
	"os"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// testVersion is stamped into the binaries under test (-X main.version),
// so that tests can check the version the gateway reports is its own.
const testVersion = "v0.0.0-e2e.1"

// bins are the binaries under test and their shared compilation cache.
var bins *harness.Binaries

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	b, err := harness.Build(harness.BuildOptions{Race: harness.RaceEnabled, Version: testVersion})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Close()
	bins = b
	return m.Run()
}
