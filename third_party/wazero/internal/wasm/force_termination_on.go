//go:build wazero_force_termination

package wasm

// ForceEnsureTermination: see force_termination.go.
const ForceEnsureTermination = true
