package main

// The sea-flea ABI, exercised with testdata/plugins/seaflea: a module
// written against the raw go-pdk whose information exports emit the JSON
// shapes of DESIGN.md byte for byte. The expectations are read from the
// fixture's own source, so that they cannot drift from what it declares.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// goStringConsts evaluates the string constants of a Go source file:
// literals, references to other constants of the file, and "+".
func goStringConsts(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	exprs := map[string]ast.Expr{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					exprs[n.Name] = vs.Values[i]
				}
			}
		}
	}
	var eval func(ast.Expr) (string, error)
	eval = func(e ast.Expr) (string, error) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", fmt.Errorf("not a string: %s", e.Value)
			}
			return strconv.Unquote(e.Value)
		case *ast.Ident:
			x, ok := exprs[e.Name]
			if !ok {
				return "", fmt.Errorf("unknown constant %s", e.Name)
			}
			return eval(x)
		case *ast.BinaryExpr:
			if e.Op != token.ADD {
				return "", fmt.Errorf("operator %s", e.Op)
			}
			l, err := eval(e.X)
			if err != nil {
				return "", err
			}
			r, err := eval(e.Y)
			return l + r, err
		case *ast.ParenExpr:
			return eval(e.X)
		}
		return "", fmt.Errorf("unsupported expression %T", e)
	}
	out := map[string]string{}
	for name, e := range exprs {
		if v, err := eval(e); err == nil {
			out[name] = v
		}
	}
	return out
}

func TestSeaFleaABI(t *testing.T) {
	t.Parallel()
	consts := goStringConsts(t, filepath.Join(harness.RepoRoot(), "testdata/plugins/seaflea/main.go"))
	for _, name := range []string{"toolsJSON", "resourcesJSON", "promptsJSON", "readmeJSON", "logoJSON"} {
		if consts[name] == "" {
			t.Fatalf("constant %s not found in the seaflea fixture's source", name)
		}
	}
	var declTools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var declResources []struct {
		URI, Name, Description, MimeType, Text, Blob string
	}
	var declPrompts []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Arguments   []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Required    bool   `json:"required"`
		} `json:"arguments"`
	}
	for name, v := range map[string]any{"toolsJSON": &declTools, "resourcesJSON": &declResources, "promptsJSON": &declPrompts} {
		if err := json.Unmarshal([]byte(consts[name]), v); err != nil {
			t.Fatalf("fixture %s: %v", name, err)
		}
	}
	if len(declTools) == 0 || len(declResources) == 0 || len(declPrompts) == 0 {
		t.Fatalf("the fixture must declare a tool, a resource and a prompt")
	}

	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: seaflea", "path: "+harness.Q(harness.Wasm(t, "testdata/plugins/seaflea")))}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 60*time.Second)

	t.Run("tools", func(t *testing.T) {
		lt, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(lt.Tools) != len(declTools) {
			t.Fatalf("tools/list has %d tools, the fixture declares %d", len(lt.Tools), len(declTools))
		}
		for i, d := range declTools {
			got := lt.Tools[i]
			if got.Name != d.Name || got.Description != d.Description {
				t.Errorf("tool %d = %q %q, want %q %q", i, got.Name, got.Description, d.Name, d.Description)
			}
			checkSchema(t, got, string(d.InputSchema))
		}
		// The fixture's one tool adds a and b.
		for _, ab := range [][2]float64{{2, 40}, {0.5, 0.25}, {-7, 3}} {
			text, isErr := harness.CallTool(ctx, t, c, declTools[0].Name, map[string]any{"a": ab[0], "b": ab[1]})
			if want := strconv.FormatFloat(ab[0]+ab[1], 'g', -1, 64); isErr || text != want {
				t.Errorf("%s %v = %q (isError %v), want %q", declTools[0].Name, ab, text, isErr, want)
			}
		}
		// Arguments are checked against the declared schema before the
		// module runs.
		text, isErr := harness.CallTool(ctx, t, c, declTools[0].Name, map[string]any{"a": "two", "b": 1})
		if !isErr || !namesField(text, "a") {
			t.Errorf("%s with a string a = %q (isError %v), want isError naming a", declTools[0].Name, text, isErr)
		}
	})

	t.Run("resources", func(t *testing.T) {
		lr, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]mcp.Resource{}
		for _, r := range lr.Resources {
			listed[r.URI] = r
		}
		if len(listed) != len(declResources) {
			t.Errorf("resources/list has %d resources, the fixture declares %d", len(listed), len(declResources))
		}
		for _, d := range declResources {
			r, ok := listed[d.URI]
			if !ok {
				t.Errorf("resource %s is not listed", d.URI)
				continue
			}
			if r.Name != d.Name || r.Description != d.Description || r.MIMEType != d.MimeType {
				t.Errorf("resource %s listed as {%q %q %q}, declared {%q %q %q}", d.URI, r.Name, r.Description, r.MIMEType, d.Name, d.Description, d.MimeType)
			}
			contents := harness.ReadResource(ctx, t, c, d.URI)
			if len(contents) != 1 {
				t.Errorf("resources/read %s: %d contents, want 1", d.URI, len(contents))
				continue
			}
			switch {
			case d.Blob != "":
				b, ok := mcp.AsBlobResourceContents(contents[0])
				if !ok {
					t.Errorf("resources/read %s: %T, want blob contents", d.URI, contents[0])
					continue
				}
				if b.URI != d.URI || b.MIMEType != d.MimeType || b.Blob != d.Blob {
					t.Errorf("resources/read %s = {%q %q %q}, want {%q %q %q}", d.URI, b.URI, b.MIMEType, b.Blob, d.URI, d.MimeType, d.Blob)
				}
				raw, err := base64.StdEncoding.DecodeString(b.Blob)
				if err != nil {
					t.Errorf("blob of %s is not base64: %v", d.URI, err)
				}
				if d.MimeType == "image/png" && !bytes.HasPrefix(raw, []byte("\x89PNG\r\n\x1a\n")) {
					t.Errorf("blob of %s does not decode to a PNG", d.URI)
				}
			default:
				tc, ok := mcp.AsTextResourceContents(contents[0])
				if !ok {
					t.Errorf("resources/read %s: %T, want text contents", d.URI, contents[0])
					continue
				}
				if tc.URI != d.URI || tc.MIMEType != d.MimeType || tc.Text != d.Text {
					t.Errorf("resources/read %s = {%q %q %q}, want {%q %q %q}", d.URI, tc.URI, tc.MIMEType, tc.Text, d.URI, d.MimeType, d.Text)
				}
			}
		}
		// The fixture has no template.
		tpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		if err != nil || len(tpl.ResourceTemplates) != 0 {
			t.Errorf("resources/templates/list = %+v, %v; want none", tpl, err)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		lp, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(lp.Prompts) != len(declPrompts) {
			t.Fatalf("prompts/list has %d prompts, the fixture declares %d", len(lp.Prompts), len(declPrompts))
		}
		d, p := declPrompts[0], lp.Prompts[0]
		if p.Name != d.Name || p.Description != d.Description {
			t.Errorf("prompt = %q %q, want %q %q", p.Name, p.Description, d.Name, d.Description)
		}
		type arg struct {
			Name, Description string
			Required          bool
		}
		var gotArgs, wantArgs []arg
		for _, a := range p.Arguments {
			gotArgs = append(gotArgs, arg{a.Name, a.Description, a.Required})
		}
		var required, optional []string
		for _, a := range d.Arguments {
			wantArgs = append(wantArgs, arg{a.Name, a.Description, a.Required})
			if a.Required {
				required = append(required, a.Name)
			} else {
				optional = append(optional, a.Name)
			}
		}
		if !reflect.DeepEqual(gotArgs, wantArgs) {
			t.Errorf("prompt arguments %+v, declared %+v", gotArgs, wantArgs)
		}
		if len(required) != 1 || len(optional) != 1 {
			t.Fatalf("the fixture's prompt should have one required and one optional argument: %+v", d.Arguments)
		}

		code := "x := 1 // " + strconv.FormatInt(time.Now().UnixNano(), 10)
		res, err := harness.GetPrompt(ctx, c, d.Name, map[string]string{required[0]: code, optional[0]: "Go"})
		if err != nil {
			t.Fatalf("prompts/get with both arguments: %v", err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
			t.Fatalf("prompts/get = %+v, want one user message", res.Messages)
		}
		if got, want := harness.PromptText(t, res), "Please review Go code:\n\n"+code; got != want {
			t.Errorf("prompts/get with both arguments = %q, want %q", got, want)
		}
		if res.Description != d.Description {
			t.Errorf("prompts/get description %q, want %q", res.Description, d.Description)
		}
		res, err = harness.GetPrompt(ctx, c, d.Name, map[string]string{required[0]: code})
		if err != nil {
			t.Fatalf("prompts/get without the optional argument: %v", err)
		}
		if got, want := harness.PromptText(t, res), "Please review the following code:\n\n"+code; got != want {
			t.Errorf("prompts/get without the optional argument = %q, want %q", got, want)
		}
		_, err = harness.GetPrompt(ctx, c, d.Name, map[string]string{optional[0]: "Go"})
		if err == nil || !strings.Contains(err.Error(), required[0]) {
			t.Errorf("prompts/get without %q: error %v, want one naming it", required[0], err)
		}
	})

	// Nothing the fixture declares is missing from what the gateway lists,
	// and nothing more is there.
	lt, _ := c.ListTools(ctx, mcp.ListToolsRequest{})
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	var declNames []string
	for _, d := range declTools {
		declNames = append(declNames, d.Name)
	}
	slices.Sort(names)
	slices.Sort(declNames)
	if !slices.Equal(names, declNames) {
		t.Errorf("tools %v, declared %v", names, declNames)
	}
}
