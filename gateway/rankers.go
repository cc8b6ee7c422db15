package gateway

import "github.com/wasmgate/wasmgate/gateway/search/rerank"

// Ranker is the discovery.ranker of the endpoint named endpoint, nil
// when it has none. It serves as long as s is held.
func (s *Snapshot) Ranker(endpoint string) rerank.Ranker {
	if s == nil || s.parts == nil || s.parts.rankers == nil {
		return nil
	}
	return s.parts.rankers.Ranker(endpoint)
}
