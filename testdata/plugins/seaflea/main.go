//go:build wasip1

// Command seaflea is a test fixture written against the raw go-pdk only,
// as a sea-flea plugin would be: its information exports emit, byte for
// byte, the JSON shapes of the sea-flea ABI (see docs/plugins.md).
//
//	tool     add {a: number, b: number} -> the sum as text
//	resource readme (seaflea://readme, text/markdown, inline text)
//	resource logo   (seaflea://logo, image/png, inline base64 blob)
//	prompt   review_prompt {code (required), language}
package main

import (
	"strconv"

	"github.com/extism/go-pdk"
)

func main() {}

const (
	toolsJSON = `[{"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first number"},"b":{"type":"number","description":"The second number"}},"required":["a","b"]}}]`

	readmeText = "# seaflea\n\nA test plugin in the sea-flea style."
	logoBlob   = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQq734HwAE1QJ8vER1UAAAAABJRU5ErkJggg==" // a 1x1 PNG

	resourcesJSON = `[{"uri":"seaflea://readme","name":"readme","description":"About this plugin","mimeType":"text/markdown","text":"# seaflea\n\nA test plugin in the sea-flea style."},` +
		`{"uri":"seaflea://logo","name":"logo","description":"A one-pixel logo","mimeType":"image/png","blob":"` + logoBlob + `"}]`

	readmeJSON = `{"uri":"seaflea://readme","mimeType":"text/markdown","text":"# seaflea\n\nA test plugin in the sea-flea style."}`
	logoJSON   = `{"uri":"seaflea://logo","mimeType":"image/png","blob":"` + logoBlob + `"}`

	promptsJSON = `[{"name":"review_prompt","description":"Asks for a code review","arguments":[{"name":"code","description":"The code to review","required":true},{"name":"language","description":"The programming language of the code"}]}]`
)

//go:wasmexport tools_information
func toolsInformation() int32 {
	pdk.OutputString(toolsJSON)
	return 0
}

//go:wasmexport resources_information
func resourcesInformation() int32 {
	pdk.OutputString(resourcesJSON)
	return 0
}

//go:wasmexport prompts_information
func promptsInformation() int32 {
	pdk.OutputString(promptsJSON)
	return 0
}

//go:wasmexport add
func add() int32 {
	var in struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	if err := pdk.InputJSON(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	pdk.OutputString(strconv.FormatFloat(in.A+in.B, 'g', -1, 64))
	return 0
}

//go:wasmexport readme
func readme() int32 {
	pdk.OutputString(readmeJSON)
	return 0
}

//go:wasmexport logo
func logo() int32 {
	pdk.OutputString(logoJSON)
	return 0
}

type message struct {
	Role    string  `json:"role"`
	Content content `json:"content"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

//go:wasmexport review_prompt
func reviewPrompt() int32 {
	var args map[string]string
	if err := pdk.InputJSON(&args); err != nil {
		pdk.SetError(err)
		return 1
	}
	if args["code"] == "" {
		pdk.SetErrorString("missing required argument: code")
		return 1
	}
	lang := args["language"]
	if lang == "" {
		lang = "the following"
	}
	text := "Please review " + lang + " code:\n\n" + args["code"]
	if err := pdk.OutputJSON([]message{{Role: "user", Content: content{Type: "text", Text: text}}}); err != nil {
		pdk.SetError(err)
		return 1
	}
	return 0
}
