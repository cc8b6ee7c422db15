package importer

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// keysInOrder are the keys of the JSON object raw in the order written
// (nil when raw is not an object).
func keysInOrder(raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}

// rawAt is the JSON text at the keys' path in plain JSON data.
func rawAt(data []byte, keys ...string) json.RawMessage {
	raw := json.RawMessage(data)
	for _, k := range keys {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		raw = m[k]
	}
	return raw
}

// vsInput is an entry of VS Code's "inputs".
type vsInput struct {
	ID          string
	Type        string
	Description string
	Password    bool
	Default     string
}

// clientKeys are the keys of a server entry each format documents; any
// other is listed as not imported.
var clientKeys = map[Format][]string{
	FormatClaude: {"command", "args", "env", "url", "headers", "type", "transport", "disabled"},
	FormatCursor: {"command", "args", "env", "envFile", "url", "headers", "type", "disabled"},
	FormatVSCode: {"type", "command", "args", "env", "envFile", "cwd", "url", "headers", "dev", "disabled"},
}

// clientServers reads the servers of a Claude Desktop, Cursor or VS Code
// config, under key ("mcpServers", "servers", "mcp.servers").
func (r *Result) clientServers(top map[string]any, key string, opts Options) error {
	servers, ok := top[strings.TrimPrefix(key, "mcp.")].(map[string]any)
	if !ok {
		if top[strings.TrimPrefix(key, "mcp.")] == nil {
			return fmt.Errorf("no %q object: nothing to import", key)
		}
		return fmt.Errorf("%q: want an object of servers by name", key)
	}
	inputs := map[string]vsInput{}
	if r.Format == FormatVSCode {
		list, _ := top["inputs"].([]any)
		for i, v := range list {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("inputs[%d]: want an object", i)
			}
			in := vsInput{ID: str(m["id"]), Type: str(m["type"]), Description: str(m["description"]), Default: str(m["default"])}
			in.Password, _ = m["password"].(bool)
			if in.ID == "" {
				return fmt.Errorf("inputs[%d]: no id", i)
			}
			inputs[in.ID] = in
		}
	}
	order := keysInOrder(r.raw(key))
	if len(order) != len(servers) {
		order = sortedKeys(servers)
	}
	for _, name := range order {
		m, ok := servers[name].(map[string]any)
		from := key + "." + name
		if !ok {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: not an object", from))
			continue
		}
		s, why := translateClient(r.Format, name, from, m, inputs, opts)
		if why != "" {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %s", from, why))
			continue
		}
		r.Servers = append(r.Servers, s)
	}
	return nil
}

// raw is the plain JSON of the object at the dotted key of the file.
func (r *Result) raw(key string) json.RawMessage {
	return rawAt(r.plain, strings.Split(key, ".")...)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// windowsPath matches a path of a Windows client's config (C:\\Users\\me).
var windowsPath = regexp.MustCompile(`^[A-Za-z]:[\\/]`)

func translateClient(format Format, name, from string, m map[string]any, inputs map[string]vsInput, opts Options) (*Server, string) {
	if d, _ := m["disabled"].(bool); d {
		return nil, "disabled in the file"
	}
	ip := interp{format: format, inputs: inputs, home: opts.Home}
	s := &Server{Source: name, From: from}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(clientKeys[format], k) {
			s.NotImported = append(s.NotImported, fmt.Sprintf("%q: the gateway has no equivalent", k))
		}
	}
	typ := strings.ToLower(str(m["type"]))
	if typ == "" {
		typ = strings.ToLower(str(m["transport"]))
	}
	command := str(m["command"])
	rawURL := str(m["url"])
	switch {
	case command != "" && rawURL != "":
		return nil, `both "command" and "url": a server is one or the other`
	case command != "":
		if typ != "" && typ != "stdio" {
			return nil, fmt.Sprintf("type %q with a command", typ)
		}
		if why := s.command(command, m, ip); why != "" {
			return nil, why
		}
	case rawURL != "":
		if why := s.remote(rawURL, typ, m, ip); why != "" {
			return nil, why
		}
	default:
		return nil, `neither "command" nor "url"`
	}
	if d, ok := m["dev"]; ok && d != nil {
		s.NotImported = append(s.NotImported, `"dev" (VS Code's watch and debug): the gateway restarts a server on a config reload, not on its files`)
	}
	return s, ""
}

// command fills s as a local server. A non-empty result says why it
// cannot be imported.
func (s *Server) command(command string, m map[string]any, ip interp) string {
	args, ok := stringList(m["args"])
	if !ok {
		return `"args": want a list of strings`
	}
	all := append([]string{command}, args...)
	for i, a := range all {
		lit, ok := ip.literal(a)
		if !ok {
			s.NotImported = append(s.NotImported, fmt.Sprintf("%s in the command: the gateway does not expand it in arguments; write the value", strings.Join(refNames(ip.refs(a)), ", ")))
		}
		if i > 0 {
			if clean, secret := secretArg(lit, all[i-1]); secret {
				lit = clean
				s.NotImported = append(s.NotImported, fmt.Sprintf("argument %d holds a credential, left out as %s: have the server read it from an environment variable (env_from), or wrap the command in a script that does", i, clean))
			}
		}
		if windowsPath.MatchString(lit) {
			s.NotImported = append(s.NotImported, fmt.Sprintf("argument %d, %s, is a Windows path: write the folder as the gateway's host sees it", i, lit))
		}
		s.Command = append(s.Command, lit)
	}
	if cwd := str(m["cwd"]); cwd != "" {
		if lit, ok := ip.literal(cwd); ok && (path.IsAbs(lit) || strings.HasPrefix(lit, "~/")) {
			s.Cwd = lit
		} else {
			s.NotImported = append(s.NotImported, fmt.Sprintf("cwd %q: write an absolute folder as cwd", cwd))
		}
	}
	envm, ok := m["env"].(map[string]any)
	if !ok && m["env"] != nil {
		return `"env": want an object of strings`
	}
	for _, k := range sortedKeys(envm) {
		v, isStr := envm[k].(string)
		if !isStr {
			if envm[k] == nil {
				continue
			}
			v = fmt.Sprint(envm[k]) // numbers and booleans, as the client would pass them
		}
		s.Env = append(s.Env, ip.envVar(k, v))
	}
	if f := str(m["envFile"]); f != "" {
		s.NotImported = append(s.NotImported, fmt.Sprintf("envFile %q: the gateway reads no env files; name its variables in env_from and set them in the gateway's environment", f))
	}
	s.Sandbox = suggestSandbox(s.Command)
	return ""
}

// remote fills s as a remote server.
func (s *Server) remote(raw, typ string, m map[string]any, ip interp) string {
	switch typ {
	case "", "http", "streamable-http", "streamablehttp", "streamable_http":
	case "sse":
		s.Notes = append(s.Notes, "an HTTP+SSE server: the gateway tries Streamable HTTP first and falls back to it")
	default:
		return fmt.Sprintf("type %q: the gateway reaches remote servers over Streamable HTTP or HTTP+SSE", typ)
	}
	lit, ok := ip.literal(raw)
	if !ok {
		return fmt.Sprintf("the url uses %s, which the gateway does not expand", strings.Join(refNames(ip.refs(raw)), ", "))
	}
	if why := checkURL(lit); why != "" {
		return why
	}
	s.URL = lit
	hm, ok := m["headers"].(map[string]any)
	if !ok && m["headers"] != nil {
		return `"headers": want an object of strings`
	}
	for _, h := range sortedKeys(hm) {
		v := str(hm[h])
		refs := ip.refs(v)
		if strings.EqualFold(h, "Authorization") {
			scheme, token, _ := strings.Cut(strings.TrimSpace(v), " ")
			if !strings.EqualFold(scheme, "bearer") {
				s.NotImported = append(s.NotImported, fmt.Sprintf("header %s with scheme %q: the gateway sends a bearer token (auth.bearer_env) or OAuth client credentials (auth.oauth)", h, scheme))
				continue
			}
			tr := ip.refs(token)
			if len(tr) == 1 && tr[0].kind == "env" && token == "${env:"+tr[0].name+"}" {
				s.BearerEnv = tr[0].name
				s.BearerNote = "set " + s.BearerEnv + " in the gateway's environment to the token (the client read it from there too)"
			} else {
				s.BearerEnv = envName(s.Source) + "_TOKEN"
				s.BearerNote = "set " + s.BearerEnv + " in the gateway's environment to the bearer token (the file's is not copied)"
			}
			continue
		}
		lit, ok := ip.literal(v)
		switch {
		case !ok && len(refs) > 0:
			s.NotImported = append(s.NotImported, fmt.Sprintf("header %s: built from %s; the gateway sends literal headers only (and a token as auth)", h, strings.Join(refNames(refs), ", ")))
		case IsSecret(h, lit) || placeholder(lit):
			s.NotImported = append(s.NotImported, fmt.Sprintf("header %s holds a secret; the gateway sends a secret only as auth (bearer_env, bearer_file, oauth), never from gateway.yaml", h))
		default:
			s.Headers = append(s.Headers, Header{Name: h, Value: lit})
		}
	}
	return ""
}

// checkURL says why the gateway would refuse raw as an upstream url ("" if
// it would not): https anywhere, http to a loopback host only, no
// credentials.
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the url is not an absolute URL"
	}
	if u.User != nil {
		return "the url holds a credential (user:password@); put the token in auth.bearer_env"
	}
	switch u.Scheme {
	case "https":
	case "http":
		h := u.Hostname()
		ip := net.ParseIP(h)
		if h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Sprintf("plain http to %s: the gateway reaches a remote server over https (http only to a loopback host)", h)
		}
	default:
		return fmt.Sprintf("url scheme %q: want https", u.Scheme)
	}
	for k := range u.Query() {
		if IsSecret(k, "") {
			return fmt.Sprintf("the url carries a secret in its query (%s): the gateway would write it in gateway.yaml; ask the server for a bearer token instead", k)
		}
	}
	return ""
}

// stringList is v as a list of strings (numbers and booleans as the
// client would pass them); nil is an empty list.
func stringList(v any) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		switch e := e.(type) {
		case string:
			out = append(out, e)
		case float64, bool:
			out = append(out, fmt.Sprint(e))
		default:
			return nil, false
		}
	}
	return out, true
}

// secretArg is a command argument a with any credential in it replaced by
// a placeholder, and whether there was one: a value shaped like a token,
// the password of a URL (postgresql://user:pw@host/db), the value of a
// flag named like a secret (--api-key=x, or x after --token).
func secretArg(a, prev string) (string, bool) {
	const hidden = "<secret>"
	if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") && v != "" && (IsSecret(strings.TrimLeft(name, "-"), v) || placeholder(v)) {
		return name + "=" + hidden, true
	}
	if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && !strings.HasPrefix(a, "-") && secretName.MatchString(strings.TrimLeft(prev, "-")) {
		return hidden, true
	}
	if secretValue.MatchString(a) {
		return hidden, true
	}
	if u, err := url.Parse(a); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "PASSWORD")
			return strings.Replace(u.String(), "PASSWORD", hidden, 1), true
		}
	}
	return a, false
}
