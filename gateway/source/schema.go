package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// noLoader refuses every external $ref: a plugin's schema must be
// self-contained, and resolving it must not touch the network or disk.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed", u)
}

// CompileSchema compiles a tool's input schema, refusing external references.
func CompileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	u := "wasmgate:///tools/" + url.PathEscape(name) + ".json"
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
}

var printer = message.NewPrinter(language.English)

// ValidateArgs checks args against the tool's input schema and returns
// what is wrong, naming each field, or "".
func ValidateArgs(sch *jsonschema.Schema, args []byte) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments are not valid JSON"
	}
	return ValidateValue(sch, inst)
}

// ValidateValue is ValidateArgs of arguments already decoded as
// jsonschema.UnmarshalJSON decodes them (numbers as json.Number).
func ValidateValue(sch *jsonschema.Schema, inst any) string {
	err := sch.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			where := "arguments"
			if len(e.InstanceLocation) > 0 {
				where = strings.Join(e.InstanceLocation, ".")
			}
			msgs = append(msgs, where+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}
