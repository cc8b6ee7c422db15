package gateway

import "github.com/wasmgate/wasmgate/gateway/search/rerank"

// Ranker is the discovery.ranker of the endpoint named endpoint, nil
// when it has none.
func (s *Snapshot) Ranker(endpoint string) rerank.Ranker { return nil }
