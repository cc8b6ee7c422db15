package transport

import (
	"context"
	"net/http"
)

// heldStream is a GET request that passed every check, handed back to
// shallowStreams to be served, with the release of its place among the
// streams (streams' openStream).
type heldStream struct {
	r       *http.Request
	release func()
}

type heldStreamKey struct{}

// heldOf is the heldStream shallowStreams put in a GET's context, or nil.
func heldOf(r *http.Request) *heldStream {
	h, _ := r.Context().Value(heldStreamKey{}).(*heldStream)
	return h
}

// shallowStreams serves a GET, the session's stream that an idle client
// holds open for as long as it keeps its session, from a shallow frame:
// the checks run and return, handing the request back (holdStreams), and
// mcp-go serves it from here. The goroutine of an idle session then keeps
// only net/http's, the router's and mcp-go's frames live below its wait,
// under a quarter of 16 KiB, so the garbage collector halves its stack to
// 8 KiB, and each collection walks a dozen frames fewer in each of them
// (issue 46: memory per idle session; calls beside 10,000 idle sessions).
// Every check above holdStreams does nothing once next returns but
// streams' release, which comes here with the request, and none wraps the
// ResponseWriter: a check that must do either for a GET has to hand it
// over here the same way.
type shallowStreams struct {
	checked http.Handler // the checks, ending in holdStreams
	serve   http.Handler // mcp-go, after every check
}

func (s shallowStreams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.checked.ServeHTTP(w, r)
		return
	}
	held := new(heldStream)
	s.checked.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), heldStreamKey{}, held)))
	if held.release != nil {
		defer held.release()
	}
	if held.r != nil {
		s.serve.ServeHTTP(w, held.r)
	}
}

// holdStreams ends the checks: a GET that passed them all is handed back
// to shallowStreams; anything else goes on to next.
func holdStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held := heldOf(r); held != nil {
			held.r = r
			return
		}
		next.ServeHTTP(w, r)
	})
}
