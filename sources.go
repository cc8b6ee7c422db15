// Package wasmgate holds the sources that `wasmgate plugin new` copies into
// a new plugin or interceptor project: the pdk package plugins import, the
// pdk/intercept package interceptors import, and the wire package the pdk
// uses, so the project builds without fetching this module.
//
// The gateway itself is the command in cmd/wasmgate; its packages are
// described in docs/ARCHITECTURE.md.
package wasmgate

import "embed"

// PluginKit is pdk/*.go, the pdk's subpackages (pdk/*/*.go: args, and
// intercept for interceptors), wire/*.go and go.sum (for the checksums of
// the modules they import), as of this build.
//
//go:embed pdk/*.go pdk/*/*.go wire/*.go go.sum
var PluginKit embed.FS
