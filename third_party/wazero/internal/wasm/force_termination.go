//go:build !wazero_force_termination

package wasm

// ForceEnsureTermination makes both engines compile every module as if
// RuntimeConfig.WithCloseOnContextDone(true) had been set. It is true only
// in builds with the wazero_force_termination tag, which test the engines
// with termination checks in every function.
const ForceEnsureTermination = false
