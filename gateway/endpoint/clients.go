package endpoint

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// Finder finds the endpoint of a session, and the one stdio serves (the
// gateway's list of endpoints).
type Finder interface {
	Holding(session string) *Endpoint // nil: none
	Stdio() *Endpoint
}

// Clients routes what sources send to MCP clients (source.Clients) to
// the endpoint the client is on: by the call's context (mcp-go's server
// of the request), or by session id.
type Clients struct{ Endpoints Finder }

var _ source.Clients = Clients{}

// of is the server of the request of ctx, else the stdio endpoint's.
func (c Clients) of(ctx context.Context) *server.MCPServer {
	if s := server.ServerFromContext(ctx); s != nil {
		return s
	}
	return c.Endpoints.Stdio().MCPServer()
}

func (c Clients) SendNotificationToClient(ctx context.Context, method string, params map[string]any) error {
	return c.of(ctx).SendNotificationToClient(ctx, method, params)
}

func (c Clients) SendNotificationToSpecificClient(session, method string, params map[string]any) error {
	e := c.Endpoints.Holding(session)
	if e == nil {
		return errors.New("no endpoint holds the session " + session)
	}
	return e.MCPServer().SendNotificationToSpecificClient(session, method, params)
}

func (c Clients) SendLogMessageToClient(ctx context.Context, n mcp.LoggingMessageNotification) error {
	return c.of(ctx).SendLogMessageToClient(ctx, n)
}

func (c Clients) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return c.of(ctx).RequestSampling(ctx, req)
}

func (c Clients) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return c.of(ctx).RequestElicitation(ctx, req)
}

func (c Clients) RequestRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return c.of(ctx).RequestRoots(ctx, req)
}

func (c Clients) WithContext(ctx context.Context, session server.ClientSession) context.Context {
	if e := c.Endpoints.Holding(session.SessionID()); e != nil {
		return e.MCPServer().WithContext(ctx, session)
	}
	return c.of(ctx).WithContext(ctx, session)
}
