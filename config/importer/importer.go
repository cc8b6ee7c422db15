// Package importer translates the MCP server lists other clients keep
// (Claude Desktop's claude_desktop_config.json, VS Code's and Cursor's
// mcp.json, an MCP registry server.json) into wasmgate's upstreams: YAML.
//
// It is pure: it reads bytes and returns text, never starting, fetching or
// reading anything else. Secrets are never copied: a value that is or
// looks like one becomes a reference to an environment variable of the
// gateway (env_from, auth.bearer_env), with a comment naming the variable
// to set. Whatever has no equivalent is kept as a "# not imported: ..."
// comment and in Result.Skipped.
package importer

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// Format is the kind of file read.
type Format string

// The formats Parse reads.
const (
	FormatAuto       Format = "auto"
	FormatClaude     Format = "claude"
	FormatVSCode     Format = "vscode"
	FormatCursor     Format = "cursor"
	FormatServerJSON Format = "server.json"
)

// Formats are the values of --format.
var Formats = []Format{FormatAuto, FormatClaude, FormatVSCode, FormatCursor, FormatServerJSON}

// ParseFormat is s as a Format, or an error listing the known ones.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q: use one of %s", s, strings.Join(names, ", "))
}

// MaxInput is the largest file Parse reads: client configs are a few
// kilobytes.
const MaxInput = 4 << 20

// Options tune the translation.
type Options struct {
	// Home is the user's home folder, for ${userHome} (VS Code, Cursor);
	// empty leaves it untranslated.
	Home string
}

// Result is what one file translates to.
type Result struct {
	File   string
	Format Format
	// Servers are the upstreams, in the file's order (server names sorted
	// for the JSON objects that hold them).
	Servers []*Server
	// Skipped are the servers not imported at all, each said with why.
	Skipped []string

	plain []byte // the file as plain JSON
}

// Server is one upstream to write.
type Server struct {
	// Source is the server's name in the file ("github"), From where it
	// sits ("mcpServers.github").
	Source, From string
	// Name is the upstream's name: Source made valid, then unique by
	// AssignNames.
	Name string

	Command []string
	Env     []EnvVar
	Cwd     string

	URL     string
	Headers []Header
	// BearerEnv is the variable holding the bearer token, with the
	// comment that says what to put in it.
	BearerEnv, BearerNote string

	// Notes are comments on the whole entry (transport, where it came
	// from); NotImported what of it has no equivalent.
	Notes, NotImported []string

	// Sandbox is a suggested sandbox for a command, printed commented out.
	Sandbox *Sandbox

	// Start is the upstream's start: ("" for the gateway's default,
	// eager).
	Start string
}

// EnvVar is one variable of a command's environment: a literal value
// (env) or, FromEnv, the gateway's own variable of the same name
// (env_from).
type EnvVar struct {
	Name, Value string
	FromEnv     bool
	Note        string
}

// Header is one literal HTTP header of a remote server.
type Header struct{ Name, Value string }

// Sandbox is a suggested sandbox: paths to read and write, and the
// network the command needs as the YAML of sandbox.network ("false",
// "[443]"), with why.
type Sandbox struct {
	Read, Write []string
	Network     string
	Why         string
}

// Parse translates one file. With FormatAuto the format is found from the
// content (Detect). The error says what is wrong with the file, never
// quoting a value from it.
func Parse(file string, data []byte, format Format, opts Options) (*Result, error) {
	if len(data) > MaxInput {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a client config may have", file, len(data), MaxInput)
	}
	plain, err := stripJSONC(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not JSON: %w", file, err)
	}
	var doc any
	if err := decodeJSONC(plain, &doc); err != nil {
		return nil, fmt.Errorf("%s: not JSON: %w", file, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a JSON object at the top", file)
	}
	if format == "" || format == FormatAuto {
		f, err := detect(top, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		format = f
	}
	r := &Result{File: file, Format: format, plain: plain}
	switch format {
	case FormatClaude, FormatCursor:
		err = r.clientServers(top, "mcpServers", opts)
	case FormatVSCode:
		key := "servers"
		if _, ok := top["servers"]; !ok {
			if mcp, ok := top["mcp"].(map[string]any); ok { // a settings.json's "mcp" section
				top, key = mcp, "mcp.servers"
			}
		}
		err = r.clientServers(top, key, opts)
	case FormatServerJSON:
		err = r.serverJSON(top)
	default:
		_, err = ParseFormat(string(format))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return r, nil
}

// Detect says which format data is, from its content.
func Detect(data []byte) (Format, error) {
	var doc any
	if err := decodeJSONC(data, &doc); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return "", fmt.Errorf("want a JSON object at the top")
	}
	return detect(top, data)
}

var cursorVars = regexp.MustCompile(`\$\{(env:|userHome|workspaceFolder|workspaceFolderBasename|pathSeparator|/)`)

func detect(top map[string]any, data []byte) (Format, error) {
	_, hasMCPServers := top["mcpServers"]
	_, hasServers := top["servers"]
	_, hasInputs := top["inputs"]
	mcp, _ := top["mcp"].(map[string]any)
	_, hasPackages := top["packages"]
	_, hasRemotes := top["remotes"]
	schema, _ := top["$schema"].(string)
	_, wrapped := top["server"].(map[string]any)
	switch {
	case hasMCPServers && cursorVars.Match(data):
		return FormatCursor, nil
	case hasMCPServers:
		return FormatClaude, nil
	case hasServers || hasInputs || mcp != nil && mcp["servers"] != nil:
		return FormatVSCode, nil
	case hasPackages || hasRemotes || strings.Contains(schema, "server.schema.json") || wrapped:
		return FormatServerJSON, nil
	}
	return "", fmt.Errorf(`cannot tell its format: no "mcpServers" (Claude Desktop, Cursor), "servers" (VS Code) or "packages"/"remotes" (a registry server.json); name one with --format`)
}

// secretName matches names of variables and headers that hold secrets.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth|session[_-]?key|cookie|(^|[_-])pat($|[_-])|(^|[_-])key$)`)

// secretValue matches values shaped like well-known credentials.
var secretValue = regexp.MustCompile(`^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{16,}|sk-[\w-]{16,}|xox[abprs]-[\w-]{10,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|(?i:bearer|basic)\s+\S+|eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]*)$`)

// IsSecret reports whether a variable or header name, or its value,
// looks like a credential.
func IsSecret(name, value string) bool {
	return secretName.MatchString(name) || secretValue.MatchString(strings.TrimSpace(value)) || urlPassword(value)
}

// urlPassword reports whether v is a URL with a password in it
// (postgresql://user:pw@host/db).
func urlPassword(v string) bool {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return false
	}
	_, has := u.User.Password()
	return has
}

// envName is s as an environment variable name: upper case, letters,
// digits and '_'.
func envName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	n := strings.TrimSuffix(b.String(), "_")
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "MCP_" + n
	}
	return n
}

// validName is s made a valid gateway name (config.ValidName): other
// characters become '-', at most 64.
func validName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else if !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	n := strings.Trim(b.String(), "-.")
	if len(n) > 60 {
		n = strings.TrimRight(n[:60], "-.")
	}
	if n == "" {
		n = "server"
	}
	return n
}

// AssignNames gives every server of rs a valid name unique among them and
// not taken (the names a gateway.yaml already uses, nil for none), and
// the same prefix. A server whose own name had to change gets a note
// saying so.
func AssignNames(rs []*Result, taken func(string) bool) {
	used := map[string]bool{}
	for _, r := range rs {
		for _, s := range r.Servers {
			base := validName(s.Source)
			name := base
			for i := 2; used[name] || taken != nil && taken(name); i++ {
				name = fmt.Sprintf("%s-%d", base, i)
			}
			used[name] = true
			s.Name = name
			if name != s.Source {
				s.Notes = append(s.Notes, fmt.Sprintf("named %q in the file", s.Source))
			}
		}
	}
}

// ValidNames reports whether every server has a valid name (after
// AssignNames).
func ValidNames(rs []*Result) bool {
	for _, r := range rs {
		for _, s := range r.Servers {
			if !config.ValidName(s.Name) {
				return false
			}
		}
	}
	return true
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
