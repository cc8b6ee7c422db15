//go:build wasip1

// Command greeter is a wasmgate example plugin in the sea-flea style, with
// one tool (say_hello), one static resource (greeter://about) and one
// prompt (greeting_prompt).
//
// The greeting word comes from the plugin's config, key "greeting"
// (gateway.yaml: plugins[].config.greeting), and defaults to "Hello".
package main

import (
	"errors"
	"fmt"

	extism "github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// greeting returns the configured greeting word.
func greeting() string {
	if g, ok := extism.GetConfig("greeting"); ok && g != "" {
		return g
	}
	return "Hello"
}

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "say_hello",
		Description: "Greets a person by name.",
		InputSchema: wasmgate.Schema(`{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"]}`),
	}})
}

//go:wasmexport say_hello
func sayHello() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(err)
	}
	if !args.Has("name") {
		return wasmgate.Fail(errors.New(`Missing argument "name": expected a string`))
	}
	name, ok := args.String("name")
	if !ok {
		return wasmgate.Fail(errors.New(`Invalid argument "name": expected a string`))
	}
	return wasmgate.Text(greeting() + ", " + name + "!")
}

//go:wasmexport resources_information
func resourcesInformation() int32 {
	return wasmgate.Information([]wasmgate.Resource{{
		URI:         "greeter://about",
		Name:        "about",
		Description: "What the greeter plugin does",
		MimeType:    "text/plain",
	}})
}

//go:wasmexport about
func about() int32 {
	return wasmgate.Information(wasmgate.ResourceContent{
		URI:      "greeter://about",
		MimeType: "text/plain",
		Text: fmt.Sprintf("greeter is a wasmgate example plugin. It greets people with %q; "+
			"set the plugin config value \"greeting\" to change the word.", greeting()),
	})
}

//go:wasmexport prompts_information
func promptsInformation() int32 {
	return wasmgate.Information([]wasmgate.Prompt{{
		Name:        "greeting_prompt",
		Description: "Asks the model to write a greeting for someone",
		Arguments: []wasmgate.PromptArgument{
			{Name: "name", Description: "Who to greet", Required: true},
			{Name: "style", Description: "The tone of the greeting, for example formal or pirate (default friendly)"},
		},
	}})
}

//go:wasmexport greeting_prompt
func greetingPrompt() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(err)
	}
	name, _ := args.String("name")
	if name == "" {
		return wasmgate.Fail(errors.New(`Missing argument "name"`))
	}
	style, _ := args.String("style")
	if style == "" {
		style = "friendly"
	}
	return wasmgate.Information([]wasmgate.PromptMessage{wasmgate.UserText(fmt.Sprintf(
		"Write a short %s greeting for %s. Start it with %q.", style, name, greeting()))})
}
