// Package host is the wasmgate host API: the functions a plugin imports
// from the gateway (namespace extism:host/user), and the state they act
// on, such as each plugin's key-value Store.
//
// Every set of host functions is registered in Functions: the key-value
// store (kv.go) and the MCP functions (mcp.go), which act on the client
// request a call serves (Call, carried by the call's context).
package host

import (
	"slices"

	extism "github.com/extism/go-sdk"
)

// Namespace is the import module of every host function.
const Namespace = "extism:host/user"

// Env is what one plugin's host functions act on.
type Env struct {
	// Store is the plugin's key-value store; it must not be nil.
	Store *Store
}

// Functions returns every host function wasmgate offers a plugin, bound
// to env.
func Functions(env Env) []extism.HostFunction {
	return slices.Concat(
		kvFunctions(env.Store),
		mcpFunctions(),
	)
}
