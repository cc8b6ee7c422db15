package upstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// TestCatalogRoundTrip: a kept catalog reads back as the lists it was
// written from (templates parsed again), so the first live list compares
// equal and sends no list_changed.
func TestCatalogRoundTrip(t *testing.T) {
	tpl, err := abi.ParseURITemplate("file:///{path}")
	if err != nil {
		t.Fatal(err)
	}
	d := abi.Descriptor{
		Tools:     []wire.Tool{{Name: "echo", Description: "Echoes", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Resources: []abi.Resource{{Resource: wire.Resource{URI: "file:///a", Name: "a"}}, {Resource: wire.Resource{URI: "file:///{path}", Name: "any"}, Template: tpl}},
		Prompts:   []wire.Prompt{{Name: "p"}},
		Warnings:  []string{"not kept"},
	}
	path := catalogPath(filepath.Join(t.TempDir(), "catalogs"), "gateway.yaml", "up", "key")
	if err := writeCatalog(path, "up", d, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("catalog file: %v, %v; want mode 0600", st, err)
	}
	got, _, ok, err := readCatalog(path, "up")
	if err != nil || !ok {
		t.Fatalf("readCatalog: %v, %v", ok, err)
	}
	if !sameLists(&got, &d) {
		t.Fatalf("read back %+v, want %+v", got, d)
	}
	if got.Resources[1].Template == nil {
		t.Fatal("the template was not parsed again")
	}
}

// TestCatalogBad: a catalog that cannot be used is an error naming the
// file and why (the upstream is then waited for as without one); a
// missing one is no error.
func TestCatalogBad(t *testing.T) {
	dir := t.TempDir()
	if _, _, ok, err := readCatalog(filepath.Join(dir, "none.json"), "up"); ok || err != nil {
		t.Fatalf("missing file: %v, %v; want not found, no error", ok, err)
	}
	big := `{"version":1,"upstream":"up","tools":[{"name":"` + strings.Repeat("x", maxCatalog) + `"}]}`
	for name, body := range map[string]string{
		"garbage":  `{"version":1,"upstream":`,
		"version":  `{"version":2,"upstream":"up"}`,
		"upstream": `{"version":1,"upstream":"other"}`,
		"template": `{"version":1,"upstream":"up","templates":[{"uri":"file:///{unclosed","name":"t"}]}`,
		"too big":  big,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, ok, err := readCatalog(path, "up")
		if ok || err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, %v; want an error naming %s", name, ok, err, path)
		}
	}
}
