//go:build wasip1

package pdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	extism "github.com/extism/go-pdk"

	"github.com/wasmgate/wasmgate/pdk/args"
)

// Object is a JSON object whose members are read without reflection: see
// [Arguments].
type Object = args.Object

// Arguments parses the export's input, which must be a JSON object: the
// arguments of a tool or prompt call (the gateway sends {} when there are
// none). Read the members with the Object's accessors (String, Number,
// Int, Bool, Has, Raw).
//
// It is the cheap way to read arguments: it uses no reflection, and in a
// Go plugin it costs a tenth of decoding the same object with [Args] or
// encoding/json (see docs/plugins.md, "What a call costs").
func Arguments() (Object, error) {
	o, err := args.Parse(input())
	if err != nil {
		return o, fmt.Errorf("invalid arguments: %w", err)
	}
	return o, nil
}

// Args decodes the export's JSON input into v with encoding/json, except
// that members fill struct fields only when named exactly like them
// (args.Unmarshal): {"PATH": …} does not fill `json:"path"`, so the
// plugin reads the arguments policy evaluated. An empty input leaves v
// unchanged and is not an error (an export may be called with no
// arguments). [Arguments] reads a flat object for a tenth of the cost.
func Args(v any) error {
	in := input()
	if len(in) == 0 {
		return nil
	}
	if err := args.Unmarshal(in, v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// ReadResourceRequest decodes the input of a resource template's export.
// A static resource's export gets an empty input, for which it returns a
// zero ResourceRequest.
func ReadResourceRequest() (ResourceRequest, error) {
	var req ResourceRequest
	in := input()
	if len(in) == 0 {
		return req, nil
	}
	bad := func(err error) (ResourceRequest, error) {
		return ResourceRequest{}, fmt.Errorf("invalid resource request: %w", err)
	}
	o, err := args.Parse(in)
	if err != nil {
		return bad(err)
	}
	if o.Has("uri") && !o.IsNull("uri") {
		var ok bool
		if req.URI, ok = o.String("uri"); !ok {
			return bad(errors.New("uri is not a string"))
		}
	}
	if raw, ok := o.Raw("arguments"); ok && string(raw) != "null" {
		a, err := args.Parse(raw)
		if err != nil {
			return bad(fmt.Errorf("arguments: %w", err))
		}
		req.Arguments = make(map[string]string, a.Len())
		for _, name := range a.Names() {
			v, ok := a.String(name)
			if !ok {
				return bad(fmt.Errorf("argument %q is not a string", name))
			}
			req.Arguments[name] = v
		}
	}
	return req, nil
}

// Input returns the export's raw input (as go-pdk's Input does, in
// fewer host calls).
func Input() []byte { return input() }

// Output sets b as the export's raw output and returns 0, or 1 if the
// output cannot be allocated in the plugin's memory.
func Output(b []byte) int32 { return output(b) }

// Information writes v as JSON to the export's output and returns 0, or
// fails if v cannot be encoded. Use it to return the results of the
// *_information exports, a ResourceContent or a prompt's messages.
func Information(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		return Fail(fmt.Errorf("wasmgate: encode output: %w", err))
	}
	return output(b)
}

// Text writes s to the export's output and returns 0 (or 1 if the output
// cannot be allocated in the plugin's memory).
func Text(s string) int32 {
	// s is only read (copied into the output block): no []byte copy.
	return output(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// Fail sets err's message as the export's error and returns 1, the
// failure status. A tool export that fails becomes a tool result with
// isError true carrying the message.
func Fail(err error) int32 {
	extism.SetError(err)
	return 1
}
