//go:build wasip1

// Command goodbye is a test fixture shaped like an older sea-flea plugin:
// its information lists a resource and a prompt that have no export of
// their name. The gateway loads it with a warning naming each, serves its
// tools, and answers the two items with an error.
//
//	tool     goodbye {name: string} -> "Goodbye, NAME!"
//	tool     wave {} -> "o/"
//	resource farewell (goodbye://farewell): no export
//	prompt   parting: no export
package main

import (
	"github.com/extism/go-pdk"
)

func main() {}

//go:wasmexport tools_information
func toolsInformation() int32 {
	pdk.OutputString(`[{"name":"goodbye","description":"Says goodbye","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},` +
		`{"name":"wave","description":"Waves"}]`)
	return 0
}

//go:wasmexport resources_information
func resourcesInformation() int32 {
	pdk.OutputString(`[{"uri":"goodbye://farewell","name":"farewell","description":"A farewell note","mimeType":"text/plain"}]`)
	return 0
}

//go:wasmexport prompts_information
func promptsInformation() int32 {
	pdk.OutputString(`[{"name":"parting","description":"A parting message","arguments":[]}]`)
	return 0
}

//go:wasmexport goodbye
func goodbye() int32 {
	var in struct {
		Name string `json:"name"`
	}
	if err := pdk.InputJSON(&in); err != nil {
		pdk.SetError(err)
		return 1
	}
	pdk.OutputString("Goodbye, " + in.Name + "!")
	return 0
}

//go:wasmexport wave
func wave() int32 {
	pdk.OutputString("o/")
	return 0
}
