package upstream

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/secretscan"
)

// Where a secret an upstream with redact_secrets sent toward a client
// was replaced besides its results (the where label of
// wasmgate_secrets_redacted_total).
const (
	whereNotification = "notification"
	whereRequest      = "request"
)

// refusedUnscannable is the reason of a request toward a client that
// could not be checked for secrets (wasmgate_upstream_requests_refused_total).
const refusedUnscannable = "unscannable"

// redacting counts each secret replaced in what s sends a client, where;
// nil when s has redact_secrets off, so that such an upstream's
// notifications and requests cost nothing more.
func (s *shared) redacting(where string) func(secretscan.Kind) {
	if !s.redactSecrets.Load() {
		return nil
	}
	return func(k secretscan.Kind) {
		s.h.Metrics.SecretsRedacted.WithLabelValues(s.name(), string(k), where).Inc()
	}
}

// redactNotification replaces, in place, the secrets of a notification's
// params (a progress message, a log line's data) before it is forwarded.
func (s *shared) redactNotification(params map[string]any) {
	if found := s.redacting(whereNotification); found != nil {
		secretscan.Value(params, found)
	}
}

// redactRequest is req (sampling or elicitation) with the secrets of its
// every string replaced, before it is sent to a client, as a request or
// as a 2026-07-28 client's inputRequests.
func (s *shared) redactRequest(req mcp.InputRequest) (mcp.InputRequest, error) {
	found := s.redacting(whereRequest)
	if found == nil {
		return req, nil
	}
	out, err := secretscan.Recoded(req, found)
	if err != nil {
		// Unreachable while mcp-go decodes what it encodes.
		s.h.Metrics.UpstreamRequestsRefused.WithLabelValues(s.name(), refusedUnscannable).Inc()
		s.h.Logger.Warn("upstream request refused: it could not be checked for secrets (redact_secrets)", "upstream", s.name(), "request", req.Method, "error", err)
		return req, fmt.Errorf("refused: %s from upstream %q could not be checked for secrets (redact_secrets): %w", req.Method, s.name(), err)
	}
	return out, nil
}
