//go:build race

package server

// padSize is the middleware frame of TestStreamableHTTPGetStreamStackShrinks
// (smaller under the race detector, whose frames are larger).
const padSize = 1024
