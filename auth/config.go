package auth

import "github.com/wasmgate/wasmgate/auth/authconfig"

// The auth section's types and defaults live in the leaf package
// authconfig, which the config loader imports; these are their names here.
type (
	Config          = authconfig.Config
	PrincipalConfig = authconfig.PrincipalConfig
	JWTConfig       = authconfig.JWTConfig
)

// Defaults of the auth section.
const (
	DefaultLeeway         = authconfig.DefaultLeeway
	DefaultRefresh        = authconfig.DefaultRefresh
	DefaultPrincipalClaim = authconfig.DefaultPrincipalClaim
	DefaultGroupsClaim    = authconfig.DefaultGroupsClaim
)

// DefaultAlgorithms are the JWS algorithms accepted when jwt.algorithms is
// not set.
var DefaultAlgorithms = authconfig.DefaultAlgorithms

// CheckExposure is authconfig.CheckExposure.
func CheckExposure(c Config, listen string) error { return authconfig.CheckExposure(c, listen) }
