//go:build wasip1

// Command conformance is the fixture behind `make conformance`: a
// hyper-mcp v2 plugin providing every tool, resource, prompt and
// completion the server scenarios of the official MCP conformance suite
// (@modelcontextprotocol/conformance) call, with the names and contents
// they expect. The MCP host functions of wasmgate's pdk do the logging,
// progress, sampling and elicitation.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

const (
	png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC" // 1x1 red
	wav = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"             // 8 samples of silence
)

type object = map[string]any

// read decodes the request of an export's input into req.
func read(req any) error {
	var in struct {
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		return err
	}
	if req == nil || len(in.Request) == 0 {
		return nil
	}
	return json.Unmarshal(in.Request, req)
}

func output(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	pdk.Output(b)
	return 0
}

func fail(err error) int32 {
	pdk.SetError(err)
	return 1
}

func text(s string) object  { return object{"type": "text", "text": s} }
func image() object         { return object{"type": "image", "data": png, "mimeType": "image/png"} }
func result(c ...any) int32 { return output(object{"content": c}) }

func tool(name, description string, properties object, required ...string) object {
	schema := object{"type": "object", "properties": properties}
	if len(required) > 0 {
		schema["required"] = required
	}
	return object{"name": name, "description": description, "inputSchema": schema}
}

func str(description string) object { return object{"type": "string", "description": description} }

//go:wasmexport list_tools
func listTools() int32 {
	none := object{}
	return output(object{"tools": []any{
		tool("test_simple_text", "Returns simple text", none),
		tool("test_image_content", "Returns an image", none),
		tool("test_audio_content", "Returns audio", none),
		tool("test_embedded_resource", "Returns an embedded resource", none),
		tool("test_multiple_content_types", "Returns text, an image and a resource", none),
		tool("test_tool_with_logging", "Logs three messages while it runs", none),
		tool("test_error_handling", "Always fails", none),
		tool("test_tool_with_progress", "Reports progress", none),
		tool("test_sampling", "Asks the client's model", object{"prompt": str("The prompt to send to the LLM")}, "prompt"),
		tool("test_elicitation", "Asks the user for input", object{"message": str("The message to show the user")}, "message"),
		tool("test_elicitation_sep1034_defaults", "Elicitation with default values", none),
		tool("test_elicitation_sep1330_enums", "Elicitation with every enum variant", none),
		tool("test_ask_twice", "Asks the user, then the client's model, then lists the client's roots", object{"topic": str("What to ask about")}, "topic"),
	}})
}

//go:wasmexport call_tool
func callTool() int32 {
	var req struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := read(&req); err != nil {
		return fail(err)
	}
	switch req.Name {
	case "test_simple_text":
		return result(text("This is a simple text response for testing."))
	case "test_image_content":
		return result(image())
	case "test_audio_content":
		return result(object{"type": "audio", "data": wav, "mimeType": "audio/wav"})
	case "test_embedded_resource":
		return result(object{"type": "resource", "resource": object{"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}})
	case "test_multiple_content_types":
		return result(text("Multiple content types test:"), image(),
			object{"type": "resource", "resource": object{"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`}})
	case "test_tool_with_logging":
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if err := wasmgate.LogToClient("info", msg); err != nil {
				return fail(err)
			}
		}
		return result(text("Tool with logging executed successfully"))
	case "test_error_handling":
		return output(object{"isError": true, "content": []any{text("This tool intentionally returns an error for testing")}})
	case "test_tool_with_progress":
		total := 100.0
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			if err := wasmgate.NotifyProgress(wasmgate.Progress{Progress: p, Total: &total}); err != nil {
				return fail(err)
			}
		}
		return result(text("Tool with progress executed successfully"))
	case "test_sampling":
		res, err := wasmgate.CreateMessage(wasmgate.CreateMessageRequest{
			Messages:  []wasmgate.SamplingMessage{{Role: "user", Content: wasmgate.TextContent{Type: "text", Text: req.Arguments["prompt"]}}},
			MaxTokens: 100,
		})
		if err != nil {
			return fail(err)
		}
		return result(text("LLM response: " + res.Text()))
	case "test_ask_twice":
		who, err := wasmgate.Elicit(wasmgate.ElicitRequest{Message: "Who asks about " + req.Arguments["topic"] + "?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return fail(err)
		}
		name, _ := who.Content["name"].(string)
		res, err := wasmgate.CreateMessage(wasmgate.CreateMessageRequest{
			Messages:  []wasmgate.SamplingMessage{{Role: "user", Content: wasmgate.TextContent{Type: "text", Text: name + " asks about " + req.Arguments["topic"]}}},
			MaxTokens: 50,
		})
		if err != nil {
			return fail(err)
		}
		roots, err := wasmgate.ListRoots()
		if err != nil {
			return fail(err)
		}
		return result(text(fmt.Sprintf("%s; model: %s; roots: %d", name, res.Text(), len(roots))))
	case "test_elicitation":
		return elicit(req.Arguments["message"], `{"type":"object","properties":{`+
			`"username":{"type":"string","description":"User's response"},`+
			`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`, "User response: ")
	case "test_elicitation_sep1034_defaults":
		return elicit("Please review and update the form fields with defaults", `{"type":"object","properties":{`+
			`"name":{"type":"string","description":"User name","default":"John Doe"},`+
			`"age":{"type":"integer","description":"User age","default":30},`+
			`"score":{"type":"number","description":"User score","default":95.5},`+
			`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},`+
			`"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`, "Elicitation completed: ")
	case "test_elicitation_sep1330_enums":
		return elicit("Please choose options", `{"type":"object","properties":{`+
			`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},`+
			`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
			`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
			`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},`+
			`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}`+
			`},"required":[]}`, "Elicitation completed: ")
	}
	return output(object{"isError": true, "content": []any{text("unknown tool " + req.Name)}})
}

// elicit asks the user for what schema describes and returns the answer
// as text after prefix.
func elicit(message, schema, prefix string) int32 {
	res, err := wasmgate.Elicit(wasmgate.ElicitRequest{Message: message, RequestedSchema: json.RawMessage(schema)})
	if err != nil {
		return fail(err)
	}
	content, _ := json.Marshal(res.Content)
	return result(text(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content)))
}

//go:wasmexport list_resources
func listResources() int32 {
	return output(object{"resources": []any{
		object{"uri": "test://static-text", "name": "static-text", "description": "A static text resource", "mimeType": "text/plain"},
		object{"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource", "mimeType": "image/png"},
		object{"uri": "test://watched-resource", "name": "watched-resource", "description": "A resource to subscribe to", "mimeType": "text/plain"},
	}})
}

//go:wasmexport list_resource_templates
func listResourceTemplates() int32 {
	return output(object{"resourceTemplates": []any{
		object{"uriTemplate": "test://template/{id}/data", "name": "template-data", "description": "Data by id", "mimeType": "application/json"},
	}})
}

//go:wasmexport read_resource
func readResource() int32 {
	var req struct {
		URI string `json:"uri"`
	}
	if err := read(&req); err != nil {
		return fail(err)
	}
	content := func(c object) int32 {
		c["uri"] = req.URI
		return output(object{"contents": []any{c}})
	}
	switch {
	case req.URI == "test://static-text":
		return content(object{"mimeType": "text/plain", "text": "This is the content of the static text resource."})
	case req.URI == "test://static-binary":
		return content(object{"mimeType": "image/png", "blob": png})
	case req.URI == "test://watched-resource":
		return content(object{"mimeType": "text/plain", "text": "Watched resource content."})
	case strings.HasPrefix(req.URI, "test://template/") && strings.HasSuffix(req.URI, "/data"):
		id := strings.TrimSuffix(strings.TrimPrefix(req.URI, "test://template/"), "/data")
		b, _ := json.Marshal(object{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		return content(object{"mimeType": "application/json", "text": string(b)})
	}
	return fail(fmt.Errorf("resource %s not found", req.URI))
}

//go:wasmexport list_prompts
func listPrompts() int32 {
	arg := func(name, description string) object {
		return object{"name": name, "description": description, "required": true}
	}
	return output(object{"prompts": []any{
		object{"name": "test_simple_prompt", "description": "A simple prompt"},
		object{"name": "test_prompt_with_arguments", "description": "A prompt with arguments",
			"arguments": []any{arg("arg1", "First test argument"), arg("arg2", "Second test argument")}},
		object{"name": "test_prompt_with_embedded_resource", "description": "A prompt with an embedded resource",
			"arguments": []any{arg("resourceUri", "URI of the resource to embed")}},
		object{"name": "test_prompt_with_image", "description": "A prompt with an image"},
	}})
}

//go:wasmexport get_prompt
func getPrompt() int32 {
	var req struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := read(&req); err != nil {
		return fail(err)
	}
	user := func(c object) object { return object{"role": "user", "content": c} }
	var msgs []any
	switch req.Name {
	case "test_simple_prompt":
		msgs = []any{user(text("This is a simple prompt for testing."))}
	case "test_prompt_with_arguments":
		msgs = []any{user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Arguments["arg1"], req.Arguments["arg2"])))}
	case "test_prompt_with_embedded_resource":
		msgs = []any{
			user(object{"type": "resource", "resource": object{"uri": req.Arguments["resourceUri"], "mimeType": "text/plain", "text": "Embedded resource content for testing."}}),
			user(text("Please process the embedded resource above.")),
		}
	case "test_prompt_with_image":
		msgs = []any{user(image()), user(text("Please analyze the image above."))}
	default:
		return fail(fmt.Errorf("prompt %s not found", req.Name))
	}
	return output(object{"messages": msgs})
}

//go:wasmexport complete
func complete() int32 {
	var req struct {
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := read(&req); err != nil {
		return fail(err)
	}
	values := []string{}
	for _, v := range []string{"paris", "park", "party", "test", "testing"} {
		if strings.HasPrefix(v, req.Argument.Value) {
			values = append(values, v)
		}
	}
	return output(object{"completion": object{"values": values, "total": len(values), "hasMore": false}})
}
