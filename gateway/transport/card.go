package transport

import (
	"net/http"

	"github.com/wasmgate/wasmgate/gateway/servercard"
)

// cardHandler serves the endpoint's server card (Options.Card) at
// <path>/server-card: public, so before and without authentication,
// and without the origin check (any page may read it, as the draft
// asks); it shows only what an anonymous caller may see, so it says
// nothing a caller without a token could not learn by connecting. nil
// without Options.Card.
func (c *checks) cardHandler() http.Handler {
	if c.o.Card == nil {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := c.o.Current()
		if st == nil {
			http.Error(w, "Service Unavailable: starting", http.StatusServiceUnavailable)
			return
		}
		anonymous := st.Identity == nil || st.Identity.Authn == nil
		servercard.Write(w, r, servercard.MediaType, c.o.Card(r, anonymous, st))
	})
}
