package intercept

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wasmgate/wasmgate/loader"
)

// Chain is a snapshot's interceptors in config order. Immutable; safe
// for concurrent use.
type Chain struct {
	list []*entry
}

type entry struct {
	spec  loader.InterceptorSpec
	ic    Interceptor
	stats *stats // nil in tests
}

// Decided is what one interceptor decided of a call, for metrics, the
// audit line and the trace.
type Decided struct {
	Interceptor string
	// Decision is continue, deny or modify, or "error" (it failed) with
	// Failure saying what became of the call (closed: it failed; open:
	// it went on).
	Decision string
	Failure  string
	Err      error
	Start    time.Time
	Took     time.Duration
}

// Verdict is what the interceptors of one phase decided together.
type Verdict struct {
	// Denied: an interceptor denied the call (or failed, failure:
	// closed); Message is what the client is told, By who.
	Denied  bool
	By      string
	Message string
	// Arguments and Result are what the interceptors modified (nil:
	// unchanged).
	Arguments json.RawMessage
	Result    json.RawMessage
	// Decisions are every interceptor's that ran, in the order they ran.
	Decisions []Decided
}

// Sees reports whether any interceptor sees method on endpoint in phase
// (so the caller need not build an Input for nothing).
func (c *Chain) Sees(method, endpoint, phase string) bool {
	if c == nil {
		return false
	}
	for _, e := range c.list {
		if e.spec.Runs(phase) && e.spec.Matches(method, endpoint, "", "") {
			return true
		}
	}
	return false
}

// Check is a modification's check by the caller (the tool's input
// schema for arguments, the result's shape and size for a result): nil
// accepts it. It must refuse anything but one JSON value (it decodes
// it: apply relies on that rather than scanning a modification once
// more).
type Check func(modified json.RawMessage) error

// Run runs the interceptors that see in (its phase, method, endpoint,
// source, name): in config order in the request phase, in reverse order
// in the response phase. Each sees what the ones before it made of the
// call. A deny stops the chain; so does a failure of an interceptor
// with failure: closed. check, when not nil, judges each modification
// before the next interceptor sees it: one it refuses fails that
// interceptor (and so the call, or not, per its failure).
func (c *Chain) Run(ctx context.Context, in *Input, check Check) Verdict {
	var v Verdict
	if c == nil {
		return v
	}
	n := len(c.list)
	for i := range n {
		e := c.list[i]
		if in.Phase == PhaseResponse {
			e = c.list[n-1-i]
		}
		if !e.spec.Runs(in.Phase) || !e.spec.Matches(in.Method, in.Endpoint, in.Source, in.Name) {
			continue
		}
		start := time.Now()
		out, err := e.ic.Intercept(ctx, in)
		if err == nil && out.Decision == Modify {
			err = apply(in, out, check)
		}
		d := Decided{Interceptor: e.spec.Name, Start: start, Took: time.Since(start)}

		switch {
		case err != nil:
			d.Decision, d.Failure, d.Err = "error", e.spec.Failure, err
			v.record(e, d)
			if e.spec.Failure == loader.FailureOpen {
				continue
			}
			v.Denied, v.By = true, e.spec.Name
			v.Message = fmt.Sprintf("interceptor %q failed: %v (failure: closed)", e.spec.Name, err)
			return v
		case out.Decision == Deny:
			d.Decision = Deny
			v.record(e, d)
			msg := out.Message
			if msg == "" {
				msg = "no reason given"
			}
			v.Denied, v.By = true, e.spec.Name
			v.Message = fmt.Sprintf("denied by interceptor %q: %s", e.spec.Name, msg)
			return v
		case out.Decision == Modify:
			d.Decision = Modify
			if in.Phase == PhaseRequest {
				v.Arguments = in.Arguments
			} else {
				v.Result = in.Result
			}
		default:
			d.Decision = Continue
		}
		v.record(e, d)
	}
	return v
}

// record keeps d, e's decision, in v and in e's counts.
func (v *Verdict) record(e *entry, d Decided) {
	v.Decisions = append(v.Decisions, d)
	if e.stats != nil {
		e.stats.count(d)
	}
}

// apply makes out's modification in's, after check: new arguments in
// the request phase, a new result in the response phase; nothing else
// of the call can change (not the tool, not the caller).
func apply(in *Input, out *Output, check Check) error {
	err := modify(in, out, check)
	if err == nil || out.answer == nil {
		return err
	}
	// The modification was sliced from the answer unread, and refused:
	// the answer decoded whole says what it is, or what is wrong with it.
	full, derr := decodeOutput(out.answer)
	if derr != nil {
		return derr
	}
	*out = *full
	if out.Decision != Modify {
		return nil
	}
	return modify(in, out, check)
}

// modify is apply of a modification read whole.
func modify(in *Input, out *Output, check Check) error {
	var mod json.RawMessage
	switch {
	case in.Phase == PhaseRequest && len(out.Arguments) > 0:
		if in.Method != "tools/call" && in.Method != "prompts/get" {
			return fmt.Errorf("modified the arguments of %s, which has none an interceptor may change", in.Method)
		}
		mod = out.Arguments
	case in.Phase == PhaseResponse && len(out.Result) > 0:
		mod = out.Result
	default:
		return fmt.Errorf(`answered "modify" without the %s to use`, map[string]string{PhaseRequest: "arguments", PhaseResponse: "result"}[in.Phase])
	}
	// The check decodes the modification anyway: JSON's validity is
	// looked at on its own only without one, or when it failed (for the
	// wording).
	if !startsObject(mod) || (check == nil && !json.Valid(mod)) {
		return notObject(mod)
	}
	if check != nil {
		if err := check(mod); err != nil {
			if !json.Valid(mod) {
				return notObject(mod)
			}
			return fmt.Errorf("its modification was refused: %v", err)
		}
	}
	if in.Phase == PhaseRequest {
		in.Arguments = mod
	} else {
		in.Result = mod
	}
	return nil
}

// startsObject reports whether raw's first token opens an object.
func startsObject(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// notObject is the error of a modification that is not one JSON object.
func notObject(mod []byte) error {
	var obj map[string]json.RawMessage
	err := json.Unmarshal(mod, &obj) // for its wording
	if err == nil {
		err = errors.New("not an object")
	}
	return fmt.Errorf("its modification is not a JSON object: %v", err)
}
