package transport

import (
	"net/http"

	"github.com/mark3labs/mcp-go/server"
)

// fastCall serves a plain tools/call (a 2025-11-25 session's, without
// _meta, task or progress token) through mcp-go's ServeToolCall, which
// runs it through the same message handler and envelope as any other but
// starts no notification forwarder unless the call sends its client
// something (third_party/mcp-go/server/fastpost.go); everything else, and
// every request ServeToolCall declines, goes to mcp-go's ServeHTTP as it
// is. It runs last, after every check, on the body that body read.
func fastCall(sh *server.StreamableHTTPServer, off bool) http.Handler {
	if off {
		return sh
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if body, ok := bodyOf(r); ok && sh.ServeToolCall(w, r, body) {
				return
			}
		}
		sh.ServeHTTP(w, r)
	})
}
