//go:build wasip1

// Command notes is a test fixture for flow control (issue 43): a plugin
// that reads private data. Its one tool, read_notes, reads every regular
// file under its guest directory /notes (granted with allowed_paths, which
// makes the plugin's default label `private`) and outputs each as
//
//	== <path relative to /notes> ==
//	<its text>
//
// in lexical order, or fails with the error of the first file it could not
// read. An empty /notes gives "no notes".
package main

import (
	"fmt"
	"io/fs"
	"os"
	"strings"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// dir is the guest directory the notes are read from.
const dir = "/notes"

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "read_notes",
		Description: "Reads the user's private notes and returns their text",
		InputSchema: wasmgate.Schema(`{"type":"object","properties":{}}`),
	}})
}

//go:wasmexport read_notes
func readNotes() int32 {
	var b strings.Builder
	fsys := os.DirFS(dir)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "== %s ==\n%s", p, data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return wasmgate.Fail(fmt.Errorf("read_notes: %w", err))
	}
	if b.Len() == 0 {
		return wasmgate.Text("no notes")
	}
	return wasmgate.Text(b.String())
}
