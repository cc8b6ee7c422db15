package relay

import (
	"time"
)

// SiteStatus is the live state of one applied site, for the status
// page: whether a page serves it, from which origin, since when, and the
// last connection it refused.
type SiteStatus struct {
	Name      string `json:"name"`
	Declared  string `json:"declared"` // where it is declared, "relay.sites[0]"
	Protocol  string `json:"protocol"`
	Connected bool   `json:"connected"`
	// Origin is the connected page's origin ("" without one).
	Origin string `json:"origin,omitempty"`
	// Replica is the replica whose page serves the site when it is
	// another one (state.backend redis); Connected is false here.
	Replica string `json:"replica,omitempty"`
	// Since is when the page connected or, without one, since when the
	// site has had none (applied, or its last page left).
	Since       time.Time `json:"since"`
	LastRefusal *Refusal  `json:"last_refusal,omitempty"`
}

// Refusal is a connection to a site that did not become its page: the
// handshake outcome as the relay_handshakes metric counts it (bad_proof,
// origin, replay, busy, timeout, malformed, ...) or why it was refused
// before one (throttled, or an unauthenticated cap).
type Refusal struct {
	Outcome string    `json:"outcome"`
	At      time.Time `json:"at"`
	Origin  string    `json:"origin,omitempty"`
	Remote  string    `json:"remote,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// SiteStatus is the state of every applied site, in configuration order.
func (r *Relay) SiteStatus() []SiteStatus {
	r.mu.Lock()
	sts := make([]*siteState, 0, len(r.order))
	for _, n := range r.order {
		if st := r.sites[n]; st != nil {
			sts = append(sts, st)
		}
	}
	r.mu.Unlock()
	out := make([]SiteStatus, 0, len(sts))
	for _, st := range sts {
		out = append(out, st.status())
	}
	return out
}

func (st *siteState) status() SiteStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := SiteStatus{Name: st.name, Declared: st.conf.Key, Protocol: st.conf.Protocol, Connected: st.bridge != nil, Since: st.since}
	if st.bridge != nil {
		s.Origin = st.bridge.origin
	} else if st.remote != nil {
		s.Replica = st.remote.owner
	}
	if st.refusal != nil {
		r := *st.refusal
		s.LastRefusal = &r
	}
	return s
}

// refused records a connection the site refused.
func (st *siteState) refused(outcome, origin, remote string, err error) {
	r := &Refusal{Outcome: outcome, At: time.Now(), Origin: origin, Remote: remote}
	if err != nil {
		r.Error = err.Error()
	}
	st.mu.Lock()
	st.refusal = r
	st.mu.Unlock()
}
