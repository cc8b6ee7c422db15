package intercept

import (
	"sync"
	"sync/atomic"
)

// stats are what an interceptor decided since it was built (kept across
// reloads that reuse it), for the status page.
type stats struct {
	continued, denied, modified, errors atomic.Int64

	mu      sync.Mutex
	lastErr string
}

func (s *stats) count(d Decided) {
	switch d.Decision {
	case Continue:
		s.continued.Add(1)
	case Deny:
		s.denied.Add(1)
	case Modify:
		s.modified.Add(1)
	default:
		s.errors.Add(1)
		s.mu.Lock()
		s.lastErr = d.Err.Error()
		s.mu.Unlock()
	}
}

// Status is what the status page shows of one interceptor.
type Status struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"` // module or server
	On        []string `json:"on"`
	Phase     string   `json:"phase"`
	Failure   string   `json:"failure"`
	Continued int64    `json:"continued"`
	Denied    int64    `json:"denied"`
	Modified  int64    `json:"modified"`
	Errors    int64    `json:"errors"`
	LastError string   `json:"last_error,omitempty"`
}

// Status is every interceptor's, in config order.
func (c *Chain) Status() []Status {
	if c == nil {
		return nil
	}
	out := make([]Status, 0, len(c.list))
	for _, e := range c.list {
		st := Status{Name: e.spec.Name, Kind: "module", On: e.spec.On, Phase: e.spec.Phase, Failure: e.spec.Failure}
		if e.spec.Remote() {
			st.Kind = "server"
		}
		if s := e.stats; s != nil {
			st.Continued, st.Denied, st.Modified, st.Errors = s.continued.Load(), s.denied.Load(), s.modified.Load(), s.errors.Load()
			s.mu.Lock()
			st.LastError = s.lastErr
			s.mu.Unlock()
		}
		out = append(out, st)
	}
	return out
}
