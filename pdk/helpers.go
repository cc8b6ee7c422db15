//go:build wasip1

package pdk

import (
	"encoding/json"
	"fmt"

	extism "github.com/extism/go-pdk"
)

// Args decodes the export's JSON input into v. An empty input leaves v
// unchanged and is not an error (an export may be called with no
// arguments).
func Args(v any) error {
	in := extism.Input()
	if len(in) == 0 {
		return nil
	}
	if err := json.Unmarshal(in, v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// ReadResourceRequest decodes the input of a resource template's export.
// A static resource's export gets an empty input, for which it returns a
// zero ResourceRequest.
func ReadResourceRequest() (ResourceRequest, error) {
	var req ResourceRequest
	err := Args(&req)
	return req, err
}

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
	return output([]byte(s))
}

// Fail sets err's message as the export's error and returns 1, the
// failure status. A tool export that fails becomes a tool result with
// isError true carrying the message.
func Fail(err error) int32 {
	extism.SetError(err)
	return 1
}
