// Package servercardtest holds the server card draft's JSON schema
// (SOURCE.md says where it comes from) for tests that validate cards.
package servercardtest

import (
	"bytes"
	_ "embed"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed server-card.schema.json
var schemaJSON []byte

// schemaURL is the schema's $id.
const schemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// Schema is the compiled ServerCard definition of the draft's schema,
// asserting formats.
func Schema(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Compile(schemaURL + "#/$defs/ServerCard")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
