//go:build wasip1

// Command storage is a wasmgate example plugin: a tool, set-storage, that
// stores a string under a key in the plugin's host key-value store, and a
// resource template, storage://{key}, that reads it back.
//
// The store is kept by the gateway, per plugin, in memory: every instance
// of this plugin sees the same keys, and they are gone when the gateway
// stops.
package main

import (
	"fmt"
	"strings"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "set-storage",
		Description: "Stores a string value under a key; read it back as the resource storage://{key}.",
		InputSchema: wasmgate.Schema(`{"type":"object","properties":{"key":{"type":"string","description":"String identifier for the stored value"},"value":{"type":"string","description":"String value to store"}},"required":["key","value"]}`),
	}})
}

//go:wasmexport resources_information
func resourcesInformation() int32 {
	return wasmgate.Information([]wasmgate.Resource{{
		URI:         "storage://{key}",
		Name:        "storage",
		Description: "The value stored at key by the set-storage tool, or \"Key not found\".",
		MimeType:    "text/plain",
	}})
}

//go:wasmexport set-storage
func setStorage() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(fmt.Errorf("Invalid arguments: expected a JSON object with key and value"))
	}
	key, err := stringArg(args, "key")
	if err != nil {
		return wasmgate.Fail(err)
	}
	value, err := stringArg(args, "value")
	if err != nil {
		return wasmgate.Fail(err)
	}
	if err := wasmgate.KVSet(key, []byte(value)); err != nil {
		return wasmgate.Fail(err)
	}
	return wasmgate.Text("Stored value at key: " + key)
}

func stringArg(args wasmgate.Object, name string) (string, error) {
	if !args.Has(name) {
		return "", fmt.Errorf("Missing argument %q: expected a string", name)
	}
	s, ok := args.String(name)
	if !ok {
		return "", fmt.Errorf("Invalid argument %q: expected a string", name)
	}
	return s, nil
}

// content is the export's output. Unlike wasmgate.ResourceContent its text
// is always present, so that an empty stored value reads as "".
type content struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

// storage reads the resource storage://{key}.
//
//go:wasmexport storage
func storage() int32 {
	req, err := wasmgate.ReadResourceRequest()
	if err != nil {
		return wasmgate.Fail(err)
	}
	key, ok := req.Arguments["key"]
	if !ok {
		// Not called as a template: take the key from the URI itself.
		key, ok = strings.CutPrefix(req.URI, "storage://")
	}
	if !ok {
		return wasmgate.Fail(fmt.Errorf("storage: cannot read %q: expected a URI storage://{key}", req.URI))
	}
	text := "Key not found"
	if v, found := wasmgate.KVGet(key); found {
		text = string(v)
	}
	return wasmgate.Information(content{URI: req.URI, MimeType: "text/plain", Text: text})
}
