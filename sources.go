// Package wasmgate holds the sources that `wasmgate plugin new` copies into
// a new plugin project: the pdk package plugins import and the wire
// package it uses, so the project builds without fetching this module.
//
// The gateway itself is the command in cmd/wasmgate; its packages are
// described in docs/ARCHITECTURE.md.
package wasmgate

import "embed"

// PluginKit is pdk/*.go, pdk/args/*.go, wire/*.go and go.sum (for the checksums of the
// modules they import), as of this build.
//
//go:embed pdk/*.go pdk/args/*.go wire/*.go go.sum
var PluginKit embed.FS
