//go:build wasip1

package intercept

import (
	"encoding/json"
	"errors"
	"fmt"

	extism "github.com/extism/go-pdk"

	"github.com/wasmgate/wasmgate/pdk"
)

// Input decodes the export's input: the event the gateway intercepted.
func Input() (*Event, error) { return DecodeEvent(pdk.Input()) }

// Config decodes the interceptor's config: section (JSON in the Extism
// config key [ConfigKey]) into v. Without a config: section it leaves v
// unchanged and returns nil, so v's defaults stand.
func Config(v any) error {
	s, ok := extism.GetConfig(ConfigKey)
	if !ok || s == "" || s == "null" {
		return nil
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode interceptor config: %w", err)
	}
	return nil
}

// Answer writes out as the export's JSON output and returns 0, or fails
// (returns non-zero with an error set) if out cannot be encoded or
// written. An export returns what Answer returns.
func Answer(out Output) int32 {
	if out.Decision == "" {
		return Fail(errors.New("interceptor answer without a decision"))
	}
	b, err := EncodeOutput(out)
	if err != nil {
		return Fail(fmt.Errorf("encode interceptor answer: %w", err))
	}
	return pdk.Output(b)
}

// Fail sets err's message as the export's error and returns 1: the
// interceptor failed, and the call fails or goes on as the interceptor's
// failure setting says.
func Fail(err error) int32 { return pdk.Fail(err) }
