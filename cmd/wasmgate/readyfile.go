package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/wasmgate/wasmgate/internal/atomicfile"
)

// readyDoc is what `serve --ready-file PATH` writes once the gateway is
// ready: where it listens, for the scripts and tests that start it, so
// that they need not read the log. A listener that is off is left out.
type readyDoc struct {
	PID   int    `json:"pid"`
	MCP   string `json:"mcp,omitempty"`   // the MCP Streamable HTTP endpoint, http://host:port/path
	Admin string `json:"admin,omitempty"` // the admin listener, http://host:port/
	Stdio bool   `json:"stdio,omitempty"` // MCP is served on stdin/stdout too
}

// newReadyDoc is the document for the listeners gateway.Run reports.
func newReadyDoc(listeners map[string]string) readyDoc {
	_, stdio := listeners["stdio"]
	return readyDoc{PID: os.Getpid(), MCP: listeners["http"], Admin: listeners["admin"], Stdio: stdio}
}

// writeReadyFile writes doc to path atomically: to a temporary file in
// the same folder, then renamed over path, so a reader sees all of it or
// nothing.
func writeReadyFile(path string, doc readyDoc) error {
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// removeReadyFile removes path; a file already gone is no error.
func removeReadyFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
