package source

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// Lists is how a source tells the gateway that what it publishes
// changed: a plugin that relisted, an upstream that said list_changed or
// came back with other lists, a relay site whose pages came or went.
// The gateway indexes its sources again and each endpoint tells its
// sessions what changed for them.
type Lists interface {
	// Changed is told that the lists of the source named name changed
	// for everyone. It returns what of them could not be published (a
	// name another source has).
	Changed(name string) (problems []string)
	// SessionChanged is told that the lists of the source named name
	// changed for one MCP session alone (a plugin with instances:
	// session).
	// It reports whether the session is still live: if not, the source
	// frees what it keeps for it.
	SessionChanged(name, session string) (live bool)
}

// Clients is how a source reaches the MCP clients it serves: a
// notification or a request (sampling, elicitation, roots) to the client
// of a call's context, a notification to one session by its id. The
// gateway routes each to the endpoint (MCP server) the client is on.
type Clients interface {
	SendNotificationToClient(ctx context.Context, method string, params map[string]any) error
	SendNotificationToSpecificClient(session, method string, params map[string]any) error
	SendLogMessageToClient(ctx context.Context, n mcp.LoggingMessageNotification) error
	RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
	RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	RequestRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error)
	WithContext(ctx context.Context, session server.ClientSession) context.Context
}

var _ Clients = (*server.MCPServer)(nil)

// Pinner is a source that says what the lock file (gateway.lock,
// docs/trust.md) pins of it beyond its lists: its kind and declaration,
// its module digest or upstream command/URL, and its grants, as its
// config and (a plugin) its fetched module give them.
type Pinner interface {
	Pins() (*lockfile.Source, error)
}
