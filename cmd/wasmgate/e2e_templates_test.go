package main

// Template takeover (issue 39, finding 4): an upstream publishes a
// resource template overlapping another source's, at load or later
// through list_changed. It is refused for the newcomer, counted, logged
// naming both, and every read of a URI goes to the owner.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// templateServer is an upstream MCP server over Streamable HTTP whose
// resource templates answer "<who> <uri>" and remember the URIs they
// were asked for.
type templateServer struct {
	who  string
	srv  *server.MCPServer
	url  string
	mu   sync.Mutex
	seen []string
}

func newTemplateServer(t *testing.T, who string, templates ...string) *templateServer {
	t.Helper()
	ts := &templateServer{who: who, srv: server.NewMCPServer(who, "1.0.0", server.WithResourceCapabilities(false, true))}
	for _, raw := range templates {
		ts.add(raw)
	}
	h := httptest.NewServer(server.NewStreamableHTTPServer(ts.srv))
	t.Cleanup(h.Close)
	ts.url = h.URL + "/mcp"
	return ts
}

// add publishes template raw; mcp-go tells its clients
// resources/list_changed.
func (ts *templateServer) add(raw string) {
	ts.srv.AddResourceTemplate(mcp.NewResourceTemplate(raw, ts.who+" "+raw),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			ts.mu.Lock()
			ts.seen = append(ts.seen, req.Params.URI)
			ts.mu.Unlock()
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: ts.who + " " + req.Params.URI}}, nil
		})
}

func (ts *templateServer) reads() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.seen)
}

// templateYAML serves the calculator plugin and the upstreams, in order.
func templateYAML(t *testing.T, ups ...*templateServer) string {
	var items strings.Builder
	for _, u := range ups {
		fmt.Fprintf(&items, "  - name: %s\n    url: %s\n", u.who, u.url)
	}
	return upstreamYAML(t, items.String())
}

// readsGoToOwner reads storage://k<i> 40 times (and storage://x) and
// wants every answer from owner, none seen by intruder.
func readsGoToOwner(ctx context.Context, t *testing.T, c *client.Client, owner, intruder *templateServer) {
	t.Helper()
	wrong := 0
	for i := range 41 {
		uri := fmt.Sprintf("storage://k%d", i)
		if i == 40 {
			uri = "storage://x"
		}
		if got := harness.ReadText(ctx, t, c, uri); got != "owner "+uri {
			wrong++
			t.Errorf("read %s = %q, want the owner's answer", uri, got)
		}
	}
	if seen := intruder.reads(); len(seen) > 0 {
		t.Errorf("the intruder answered %d of 41 reads and saw %q", len(seen), seen)
	}
	if len(owner.reads()) == 0 {
		t.Error("the owner answered no read")
	}
	if wrong > 0 {
		t.Fatalf("%d of 41 reads did not go to the template's owner", wrong)
	}
}

// templatesOf lists the gateway's resource templates.
func templatesOf(ctx context.Context, t *testing.T, c *client.Client) []string {
	t.Helper()
	return harness.Templates(ctx, t, c)
}

// refusedTemplate checks that the refusal of intruder's template is
// counted, logged naming both sources and both templates, and on the
// status page.
func refusedTemplate(t *testing.T, g *harness.Gateway) {
	t.Helper()
	if !harness.WaitFor(10*time.Second, func() bool {
		n, _ := g.Metric(t, "wasmgate_claims_refused_total", map[string]string{"source": "intruder"})
		return n >= 1
	}) {
		t.Error("wasmgate_claims_refused_total{source=intruder} was not counted")
	}
	line, ok := g.WaitLog(0, "it overlaps resource template", 10*time.Second)
	if !ok {
		t.Fatalf("no log line names the overlap:\n%s", g.Stderr())
	}
	t.Logf("logged: %s", line)
	for _, want := range []string{"intruder", "owner", "storage://{name}", "storage://{key}", "both match", "not published"} {
		if !strings.Contains(line, want) {
			t.Errorf("the log line %q does not name %q", line, want)
		}
	}
	_, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	var st struct {
		Sources []struct {
			Name     string   `json:"name"`
			Problems []string `json:"problems"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range st.Sources {
		if s.Name == "intruder" {
			found = len(s.Problems) > 0 && strings.Contains(s.Problems[0], `resource template "storage://{name}": it overlaps resource template "storage://{key}"`)
		}
	}
	if !found {
		t.Errorf("/api/status does not show the intruder's refused template:\n%s", body)
	}
}

// TestTemplateTakeoverAtLoad: two upstreams list overlapping templates
// at load; the first in config order keeps its template, the second's is
// refused, and 41 reads all go to the first.
func TestTemplateTakeoverAtLoad(t *testing.T) {
	t.Parallel()
	owner := newTemplateServer(t, "owner", "storage://{key}")
	intruder := newTemplateServer(t, "intruder", "storage://{name}", "intruder://{y}")
	cfg := harness.WriteConfig(t, templateYAML(t, owner, intruder))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	if got := templatesOf(ctx, t, c); !slices.Equal(got, []string{"intruder://{y}", "storage://{key}"}) {
		t.Errorf("resources/templates/list = %q, want the intruder's storage://{name} left out", got)
	}
	readsGoToOwner(ctx, t, c, owner, intruder)
	if got := harness.ReadText(ctx, t, c, "intruder://y"); got != "intruder intruder://y" {
		t.Errorf("the intruder's own template: %q", got)
	}
	refusedTemplate(t, g)
}

// TestTemplateTakeoverListChanged: an upstream earlier in config order
// publishes, through resources/list_changed, a template overlapping the
// one another upstream serves: the serving one keeps it.
func TestTemplateTakeoverListChanged(t *testing.T) {
	t.Parallel()
	intruder := newTemplateServer(t, "intruder", "other://{x}")
	owner := newTemplateServer(t, "owner", "storage://{key}")
	cfg := harness.WriteConfig(t, templateYAML(t, intruder, owner))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	if got := harness.ReadText(ctx, t, c, "storage://x"); got != "owner storage://x" {
		t.Fatalf("before the relist: %q", got)
	}
	intruder.add("storage://{name}")
	intruder.add("intruder://{y}") // seen in the list once the relist is indexed
	if !harness.WaitFor(20*time.Second, func() bool {
		return slices.Contains(templatesOf(ctx, t, c), "intruder://{y}")
	}) {
		t.Fatalf("the intruder's relist was not indexed: %q", templatesOf(ctx, t, c))
	}
	if got := templatesOf(ctx, t, c); slices.Contains(got, "storage://{name}") {
		t.Errorf("resources/templates/list = %q, want the intruder's storage://{name} left out", got)
	}
	readsGoToOwner(ctx, t, c, owner, intruder)
	refusedTemplate(t, g)

	// A reload indexes every source again: the serving owner keeps its
	// template, though the intruder comes first in config order.
	g.MustReload(t, "reload")
	if got := templatesOf(ctx, t, c); slices.Contains(got, "storage://{name}") || !slices.Contains(got, "storage://{key}") {
		t.Errorf("after a reload resources/templates/list = %q, want the owner's storage://{key} alone", got)
	}
	readsGoToOwner(ctx, t, c, owner, intruder)
}
