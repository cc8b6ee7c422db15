//go:build wasip1

// Command fetch is a test fixture for plugin HTTP: its tool fetch sends
// one request through the gateway (wasmgate.HTTPSend) and outputs
// {"status": ..., "body": "...", "content_type": "..."}, or fails with the gateway's reason
// prefixed by "fetch: " when the gateway refuses or fails the request.
// Either way the plugin itself answers: a refusal is not a trap.
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	extism "github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "fetch",
		Description: "Sends an HTTP request and returns the status and body",
		InputSchema: wasmgate.Schema(`{"type":"object","properties":{
			"url":{"type":"string"},
			"method":{"type":"string"},
			"body":{"type":"string"},
			"headers":{"type":"object","additionalProperties":{"type":"string"}}
		},"required":["url"]}`),
	}})
}

var methods = map[string]extism.HTTPMethod{
	"GET": extism.MethodGet, "HEAD": extism.MethodHead, "POST": extism.MethodPost, "PUT": extism.MethodPut,
	"PATCH": extism.MethodPatch, "DELETE": extism.MethodDelete, "OPTIONS": extism.MethodOptions,
}

//go:wasmexport fetch
func fetch() int32 {
	var in struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Body    string            `json:"body"`
		Headers map[string]string `json:"headers"`
	}
	if err := wasmgate.Args(&in); err != nil {
		return wasmgate.Fail(err)
	}
	method := extism.MethodGet
	if in.Method != "" {
		m, ok := methods[strings.ToUpper(in.Method)]
		if !ok {
			return wasmgate.Fail(fmt.Errorf("fetch: unknown method %q", in.Method))
		}
		method = m
	}
	req := extism.NewHTTPRequest(method, in.URL)
	for k, v := range in.Headers {
		req.SetHeader(k, v)
	}
	if in.Body != "" {
		req.SetBody([]byte(in.Body))
	}
	resp, err := wasmgate.HTTPSend(req)
	if err != nil {
		return wasmgate.Fail(fmt.Errorf("fetch: %w", err))
	}
	out, _ := json.Marshal(map[string]any{"status": resp.Status, "body": string(resp.Body), "content_type": resp.Headers["content-type"]})
	return wasmgate.Text(string(out))
}
