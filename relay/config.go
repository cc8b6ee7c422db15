package relay

import "github.com/wasmgate/wasmgate/relay/relayconfig"

// The relay section's types and defaults live in the leaf package
// relayconfig, which the config loader imports; these are their names here.
type (
	Config              = relayconfig.Config
	SiteConfig          = relayconfig.SiteConfig
	Unauthenticated     = relayconfig.Unauthenticated
	SiteUnauthenticated = relayconfig.SiteUnauthenticated
)

const (
	DefaultPath        = relayconfig.DefaultPath
	DefaultAuthTimeout = relayconfig.DefaultAuthTimeout
	DefaultCallTimeout = relayconfig.DefaultCallTimeout
	DefaultMaxFrame    = relayconfig.DefaultMaxFrame
	MinTokenBytes      = relayconfig.MinTokenBytes
	ProtocolWasmgate   = relayconfig.ProtocolWasmgate
	ProtocolWULegacy   = relayconfig.ProtocolWULegacy
	bridgeJS           = relayconfig.BridgeJS

	DefaultMaxUnauthenticated     = relayconfig.DefaultMaxUnauthenticated
	DefaultSiteMaxUnauthenticated = relayconfig.DefaultSiteMaxUnauthenticated
	DefaultFailedAuthBurst        = relayconfig.DefaultFailedAuthBurst
	DefaultFailedAuthEvery        = relayconfig.DefaultFailedAuthEvery
)
