package gateway

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestFastListMatchesMCPGo: a tools/list served by the fast path (the
// tools' JSON kept per publication and written as it is,
// mcp.ListToolsResult.RawTools) answers exactly what mcp-go's ServeHTTP
// answers: for a caller who sees every tool and one whose policy hides
// half, with ids and cursors of every kind, on sessions of both kinds
// (answered with JSON, and with an event stream once sent a
// notification), with an interceptor rewriting the list, and after a
// reload that changes one upstream's tools.
func TestFastListMatchesMCPGo(t *testing.T) {
	describe := builtWasm(t, "examples/interceptors/describe.wasm")
	urls := scaleUpstreams(t, 4, 6, "")
	other := scaleUpstreams(t, 1, 8, " <changed> & more")
	intercepted := "interceptors:\n  - {name: describe, path: " + describe + ", on: [tools/list], phase: response, limits: {timeout: 30s}, config: {prefix: \"[gw] \", hide: [\"u00_op_001\"]}}\n"
	g := openTestGateway(t, scaleYAML(urls))
	fast, slow := slowHandler(g, false), slowHandler(g, true)
	do := func(h http.Handler, id, token, body string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, benchRequestAs(body, id, token))
		return fmt.Sprintf("%d %s\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	list := func(id, params string) string {
		b := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`
		if params != "" {
			b += `,"params":` + params
		}
		return b + "}"
	}
	cursor := base64.StdEncoding.EncodeToString([]byte("u01_op_003"))
	bodies := []string{
		list("1", ""), list(`"a"`, `{}`), list(`12345678901234567890`, ""), list("null", ""),
		list("2", `{"cursor":"`+cursor+`"}`), list("3", `{"cursor":"%%%"}`), list("4", `{"_meta":{}}`),
		list("5", `{"cursor":"`+cursor+`","_meta":{"progressToken":1}}`),
	}
	compare := func(t *testing.T, what string, wantAll, wantHalf int) {
		t.Helper()
		for _, token := range []string{"all-token", "half-token"} {
			fastID, slowID := httpSessionAs(t, fast, token), httpSessionAs(t, slow, token)
			for _, body := range bodies {
				got, want := do(fast, fastID, token, body), do(slow, slowID, token, body)
				if got != want {
					t.Fatalf("%s, %s, %s:\nfast path:\n%.2000s\nmcp-go:\n%.2000s", what, token, body, got, want)
				}
			}
			n := strings.Count(do(fast, fastID, token, list("1", "")), `"name":"u`)
			if want := map[string]int{"all-token": wantAll, "half-token": wantHalf}[token]; n != want {
				t.Fatalf("%s, %s: %d tools listed, want %d", what, token, n, want)
			}
		}
	}
	write := func(yaml string) {
		t.Helper()
		if err := os.WriteFile(g.opts.ConfigPath, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := g.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	compare(t, "started", 24, 12)

	// One upstream's tools changed (descriptions with HTML characters,
	// two more tools): the new publication's JSON, not the last one's.
	changed := append([]string(nil), urls...)
	changed[1] = other[0]
	write(scaleYAML(changed))
	compare(t, "reloaded", 26, 14)
	if got := do(fast, httpSessionAs(t, fast, "all-token"), "all-token", list("1", "")); !strings.Contains(got, `\u003cchanged\u003e`) {
		t.Fatalf("the reloaded upstream's descriptions are not listed:\n%.1000s", got)
	}

	// An interceptor that rewrites the list: every caller gets its list.
	write(scaleYAML(changed) + intercepted)
	compare(t, "intercepted", 25, 13)
	if got := do(fast, httpSessionAs(t, fast, "all-token"), "all-token", list("1", "")); !strings.Contains(got, `"description":"[gw] `) || strings.Contains(got, `"u00_op_001"`) {
		t.Fatalf("the interceptor's list is not the one listed:\n%.1000s", got)
	}

	// Sessions answered with event streams (sent a list_changed by the
	// reloads above, as every session of a gateway that reloads is).
	write(scaleYAML(urls))
	for _, token := range []string{"all-token", "half-token"} {
		fastID, slowID := httpSessionAs(t, fast, token), httpSessionAs(t, slow, token)
		write(scaleYAML(changed)) // list_changed to both sessions
		for _, body := range bodies {
			got, want := do(fast, fastID, token, body), do(slow, slowID, token, body)
			if got != want {
				t.Fatalf("upgraded, %s, %s:\nfast path:\n%.2000s\nmcp-go:\n%.2000s", token, body, got, want)
			}
		}
		write(scaleYAML(urls))
	}
}
