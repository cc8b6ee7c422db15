package upstream

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// capsSession is a client session that declared caps.
type capsSession struct{ caps mcp.ClientCapabilities }

func (s *capsSession) Initialize()                                         {}
func (s *capsSession) Initialized() bool                                   { return true }
func (s *capsSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s *capsSession) SessionID() string                                   { return "" }
func (s *capsSession) GetClientInfo() mcp.Implementation                   { return mcp.Implementation{} }
func (s *capsSession) SetClientInfo(mcp.Implementation)                    {}
func (s *capsSession) GetClientCapabilities() mcp.ClientCapabilities       { return s.caps }
func (s *capsSession) SetClientCapabilities(c mcp.ClientCapabilities)      { s.caps = c }

// TestParkedAsksOnlyWhatTheClientDeclared: a parked call's client that
// declared sampling and elicitation is not asked for roots (the
// upstream's roots/list is refused); one that declared nothing is asked
// (a 2026-07-28 client learns of the request from input_required).
func TestParkedAsksOnlyWhatTheClientDeclared(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // an ask that gets past the check ends here, at once
	declared := &parkedCall{ctx: ctx, asks: make(chan *inputAsk), client: &capsSession{caps: mcp.ClientCapabilities{
		Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}}}
	_, err := declared.ask(ctx, mcp.NewRootsInputRequest())
	if err == nil || !strings.Contains(err.Error(), "does not support roots") {
		t.Errorf("roots of a client that declared sampling and elicitation: %v, want refused", err)
	}
	_, err = declared.ask(ctx, mcp.NewElicitationInputRequest(mcp.ElicitationParams{Message: "?"}))
	if err != nil && strings.Contains(err.Error(), "does not support") {
		t.Errorf("elicitation of a client that declared it: %v", err)
	}
	silent := &parkedCall{ctx: ctx, asks: make(chan *inputAsk), client: &capsSession{}}
	if _, err := silent.ask(ctx, mcp.NewRootsInputRequest()); err != nil && strings.Contains(err.Error(), "does not support") {
		t.Errorf("roots of a client that declared nothing: %v, want it asked", err)
	}
}
