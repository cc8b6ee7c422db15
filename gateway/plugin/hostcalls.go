package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/host"
)

// The MCP host functions (loader/host) as the gateway serves them: every
// plugin call made for a client carries a callState, through which the
// plugin notifies and asks the client whose request it serves. A plugin's
// *_list_changed makes the gateway read its lists again when the call
// ends and publish them, as a reload does.

// callState is one plugin call as its host functions see it.
type callState struct {
	h       *Host
	rt      *Source
	token   any     // the client's progress token; nil when it sent none
	changed [3]bool // lists the plugin said changed (host.List)
	sent    atomic.Int64
	// The shared state's failure that stopped the call (host.StateReporter).
	unavailable error
	trace       trace.SpanContext // the call's: its trace id goes in its log lines when sampled
}

// StateUnavailable records the shared state's failure (state.backend
// redis): the call fails with it as the tool's error, not as a crash.
func (c *callState) StateUnavailable(err error) { c.unavailable = err }

// spend counts one notification of kind toward limits.max_notifications,
// or refuses it (counted) once the call has sent that many: the error
// wraps host.ErrStop, so the host function ends the call with it (the
// notify functions return nothing a plugin could check).
func (c *callState) spend(kind string) error {
	max := int64(c.rt.spec.Limits.MaxNotifications)
	if n := c.sent.Add(1); n > max {
		c.h.Metrics.PluginNotificationsRefused.WithLabelValues(c.rt.name, kind).Inc()
		if n == max+1 {
			attrs := []any{"plugin", c.rt.name, "kind", kind, "max", max, "hint", "raise limits.max_notifications if the plugin needs more"}
			if c.trace.IsSampled() {
				attrs = append(attrs, "trace_id", c.trace.TraceID().String())
			}
			c.h.Logger.Warn("plugin call sent too many notifications; the call is stopped", attrs...)
		}
		return fmt.Errorf("plugin %q sent more than %d notifications in one call, the most it may (limits.max_notifications); the call was stopped at a %s notification: %w", c.rt.name, max, kind, host.ErrStop)
	}
	return nil
}

// redacting counts each secret replaced in what the call sends its
// client besides the result, where (notification, request); nil when
// the plugin has redact_secrets off, which then costs nothing more.
func (c *callState) redacting(where string) func(secretscan.Kind) {
	if !c.rt.spec.RedactSecrets {
		return nil
	}
	return func(k secretscan.Kind) {
		c.h.Metrics.SecretsRedacted.WithLabelValues(c.rt.name, string(k), where).Inc()
	}
}

// redactJSON is the JSON text b with the secrets of its strings
// replaced (redact_secrets), counted where. Text that is not JSON is
// returned as it is: decoding it fails after.
func (c *callState) redactJSON(b json.RawMessage, where string) json.RawMessage {
	if found := c.redacting(where); found != nil {
		if out, _, err := secretscan.JSON(b, found); err == nil {
			return out
		}
	}
	return b
}

var (
	_ host.Call          = (*callState)(nil)
	_ host.StateReporter = (*callState)(nil)
)

// newCall is the state of a call made with ctx, which carries the client
// request (abi.WithRequest) and its mcp-go session.
func (p *Source) newCall(ctx context.Context) *callState {
	return &callState{h: p.h, rt: p, token: abi.RequestOf(ctx).ProgressToken(), trace: trace.SpanContextFromContext(ctx)}
}

func (c *callState) ListChanged(l host.List) {
	if int(l) < len(c.changed) {
		c.changed[l] = true
	}
}

func (c *callState) ResourceUpdated(uri string) error {
	if err := c.spend("resource_updated"); err != nil {
		return err
	}
	c.h.ResourceUpdated(source.ExposedURI(c.rt.spec.Prefix, uri))
	return nil
}

func (c *callState) Progress(ctx context.Context, p host.ProgressParams) error {
	if c.token == nil {
		return nil
	}
	if err := c.spend("progress"); err != nil {
		return err
	}
	params := map[string]any{"progressToken": c.token, "progress": p.Progress}
	if p.Total != nil {
		params["total"] = *p.Total
	}
	if p.Message != "" {
		if found := c.redacting("notification"); found != nil {
			p.Message = secretscan.Redact(p.Message, found)
		}
		params["message"] = p.Message
	}
	return c.h.MCP.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
}

func (c *callState) Log(ctx context.Context, m host.LogParams) error {
	level := mcp.LoggingLevel(m.Level)
	switch level {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
	default:
		return fmt.Errorf("unknown logging level %q", m.Level)
	}
	if err := c.spend("log"); err != nil {
		return err
	}
	logger := m.Logger
	if logger == "" {
		logger = c.rt.name
	}
	if found := c.redacting("notification"); found != nil {
		logger = secretscan.Redact(logger, found)
		m.Data = c.redactJSON(m.Data, "notification")
	}
	var data any = m.Data
	if len(m.Data) == 0 {
		data = nil
	}
	return c.h.MCP.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(level, logger, data))
}

// capable checks that the calling client can answer a request needing the
// client capability named what.
func capable(ctx context.Context, what string) error {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return errors.New("no client session")
	}
	if !session.Initialized() {
		return errors.New("the client has not finished initializing")
	}
	known, has := source.ClientDeclares(session, what)
	if !known {
		return fmt.Errorf("the client's capabilities are unknown, so it cannot be asked for %s", what)
	}
	if !has {
		return fmt.Errorf("the client does not support %s (it did not declare the capability)", what)
	}
	return nil
}

// answer turns a client's answer (or failure) into what the plugin reads.
func answer(ctx context.Context, method string, v any, err error) (json.RawMessage, error) {
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: the call ended before the client answered (%v)", method, context.Cause(ctx))
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return json.Marshal(v)
}

// ask is a request of a 2026-07-28 client's call (roundtrip.From): the
// answer of an earlier round, or the run stops and the client is asked.
func ask(r *roundtrip.Replay, req mcp.InputRequest) (json.RawMessage, error) {
	out, err := r.Ask(req)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, host.ErrStop)
	}
	return out, nil
}

func (c *callState) CreateMessage(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	req := mcp.CreateMessageRequest{Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}}
	params = c.redactJSON(params, "request")
	if err := json.Unmarshal(params, &req.CreateMessageParams); err != nil {
		return nil, fmt.Errorf("invalid sampling request: %v", err)
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("invalid sampling request: no messages")
	}
	if r := roundtrip.From(ctx); r != nil {
		return ask(r, mcp.NewSamplingInputRequest(req.CreateMessageParams))
	}
	if err := capable(ctx, "sampling"); err != nil {
		return nil, err
	}
	res, err := c.h.MCP.RequestSampling(ctx, req)
	return answer(ctx, "sampling/createMessage", res, err)
}

func (c *callState) Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var in struct {
		mcp.ElicitationParams
		Timeout float64 `json:"timeout"` // seconds, as hyper-mcp reads it
	}
	// hyper-mcp's PDK writes the date-time format as date_time.
	params = json.RawMessage(strings.ReplaceAll(string(params), `"format":"date_time"`, `"format":"date-time"`))
	params = c.redactJSON(params, "request")
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, fmt.Errorf("invalid elicitation request: %v", err)
	}
	if r := roundtrip.From(ctx); r != nil {
		return ask(r, mcp.NewElicitationInputRequest(in.ElicitationParams))
	}
	if err := capable(ctx, "elicitation"); err != nil {
		return nil, err
	}
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(in.Timeout*float64(time.Second)))
		defer cancel()
	}
	req := mcp.ElicitationRequest{Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: in.ElicitationParams}
	res, err := c.h.MCP.RequestElicitation(ctx, req)
	return answer(ctx, "elicitation/create", res, err)
}

func (c *callState) ListRoots(ctx context.Context) (json.RawMessage, error) {
	if r := roundtrip.From(ctx); r != nil {
		return ask(r, mcp.NewRootsInputRequest())
	}
	if err := capable(ctx, "roots"); err != nil {
		return nil, err
	}
	res, err := c.h.MCP.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	return answer(ctx, "roots/list", res, err)
}

// relist reads the plugin's lists again with inst (the instance whose
// call said they changed, so the one whose state changed) and has the
// gateway publish them, with list_changed for what changed. With
// instances: session, inst is session's own: what it lists is that
// session's view of the plugin alone (SessionLists): tools, resources,
// templates and prompts.
func (p *Source) relist(inst *loader.Instance, session string) {
	ctx, cancel := context.WithTimeout(context.Background(), p.Timeout())
	defer cancel()
	info, err := p.plugin.ABI.Describe(ctx, inst)
	if err != nil {
		p.h.Logger.Warn("plugin said its lists changed, but listing them failed; serving the previous lists", "plugin", p.name, "error", err)
		return
	}
	if p.pool.scope == loader.InstancesSession && session != "" && p.h.Lists != nil {
		p.sh.setSession(session, info)
		if !p.h.Lists.SessionChanged(p.name, session) {
			p.EndSession(context.Background(), session) // it ended while its call ran
		}
		return
	}
	p.sh.info.Store(&info)
	if p.h.Lists != nil {
		p.h.Lists.Changed(p.name)
	}
}

// SessionLists is what the instance of session listed, when it relisted
// (instances: session).
func (p *Source) SessionLists(session string) (abi.Descriptor, bool) {
	if p.pool.scope != loader.InstancesSession {
		return abi.Descriptor{}, false // every call looks, so the other scopes take no lock
	}
	return p.sh.sessionLists(session)
}

// ForgetSessionLists drops what the instance of session listed: the
// session sees the plugin's shared lists again (its instance stays).
func (p *Source) ForgetSessionLists(session string) { p.sh.forgetSession(session) }
