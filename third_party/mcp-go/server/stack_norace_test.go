//go:build !race

package server

// padSize is the middleware frame of TestStreamableHTTPGetStreamStackShrinks.
const padSize = 2816
