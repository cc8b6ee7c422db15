package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The runner each package registry's packages start with when the
// server.json gives no runtimeHint.
var defaultRunner = map[string]string{"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}

// serverJSON reads an MCP registry server.json (or a registry answer
// wrapping one in "server"): its first package or remote that translates
// becomes the upstream; the others are listed as not imported, since they
// are the same server another way.
func (r *Result) serverJSON(top map[string]any) error {
	if inner, ok := top["server"].(map[string]any); ok {
		top = inner
	}
	full := str(top["name"])
	if full == "" {
		return fmt.Errorf(`no "name": a server.json names its server ("io.github.owner/server")`)
	}
	short := full[strings.LastIndex(full, "/")+1:]
	packages, okP := top["packages"].([]any)
	remotes, okR := top["remotes"].([]any)
	if top["packages"] != nil && !okP || top["remotes"] != nil && !okR {
		return fmt.Errorf(`"packages" and "remotes" must be lists`)
	}
	var chosen *Server
	try := func(from string, s *Server, why string) {
		switch {
		case why != "":
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %s", from, why))
		case chosen != nil:
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: the same server as %s, which is imported; import this one instead by deleting the other from the file", from, chosen.From))
		default:
			chosen = s
		}
	}
	for i, p := range packages {
		from := fmt.Sprintf("packages[%d]", i)
		m, ok := p.(map[string]any)
		if !ok {
			try(from, nil, "not an object")
			continue
		}
		s, why := translatePackage(short, from, m)
		if s == nil && why == "" {
			why = "not translated"
		}
		try(fmt.Sprintf("%s (%s %s)", from, str(m["registryType"]), str(m["identifier"])), s, why)
	}
	for i, p := range remotes {
		from := fmt.Sprintf("remotes[%d]", i)
		m, ok := p.(map[string]any)
		if !ok {
			try(from, nil, "not an object")
			continue
		}
		s, why := translateRemote(short, from, m)
		try(fmt.Sprintf("%s (%s)", from, str(m["type"])), s, why)
	}
	if chosen != nil {
		chosen.Notes = append([]string{fmt.Sprintf("the registry's %s, version %s", full, str(top["version"]))}, chosen.Notes...)
		r.Servers = append(r.Servers, chosen)
	} else if len(packages)+len(remotes) == 0 {
		r.Skipped = append(r.Skipped, fmt.Sprintf("%s: no packages and no remotes (see its websiteUrl for how to install it)", full))
	}
	return nil
}

var templateVar = regexp.MustCompile(`\{([A-Za-z0-9_.-]+)\}`)

// input is a server.json Input: an argument, variable, header or
// environment variable.
type input struct {
	Name, Value, Default, ValueHint, Description string
	Type                                         string
	Required, Secret                             bool
	Variables                                    map[string]any
}

func readInput(m map[string]any) input {
	in := input{Name: str(m["name"]), Value: scalarString(m["value"]), Default: scalarString(m["default"]),
		ValueHint: str(m["valueHint"]), Description: str(m["description"]), Type: str(m["type"])}
	in.Required, _ = m["isRequired"].(bool)
	in.Secret, _ = m["isSecret"].(bool)
	in.Variables, _ = m["variables"].(map[string]any)
	return in
}

func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

// resolve is the input's value with its {variables} replaced by their
// values or defaults. missing names what has none; secret reports
// whether the input or a variable it used is a secret.
func (in input) resolve() (v string, missing []string, secret bool) {
	v = in.Value
	if v == "" {
		v = in.Default
	}
	secret = in.Secret
	v = templateVar.ReplaceAllStringFunc(v, func(m string) string {
		name := m[1 : len(m)-1]
		vm, ok := in.Variables[name].(map[string]any)
		if !ok {
			return m
		}
		vi := readInput(vm)
		if vi.Secret {
			secret = true
		}
		if x := vi.Value; x != "" {
			return x
		}
		if x := vi.Default; x != "" {
			return x
		}
		missing = append(missing, name)
		return m
	})
	return v, missing, secret
}

func (in input) label() string {
	for _, s := range []string{in.Name, in.ValueHint} {
		if s != "" {
			return s
		}
	}
	return "value"
}

func describe(in input) string {
	if in.Description == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", in.Description)
}

// arguments translates runtimeArguments or packageArguments.
func (s *Server) arguments(list []any, key string) []string {
	var out []string
	for i, a := range list {
		m, ok := a.(map[string]any)
		if !ok {
			s.NotImported = append(s.NotImported, fmt.Sprintf("%s[%d]: not an object", key, i))
			continue
		}
		in := readInput(m)
		v, missing, secret := in.resolve()
		where := fmt.Sprintf("%s[%d] %s", key, i, in.label())
		switch {
		case secret:
			s.NotImported = append(s.NotImported, fmt.Sprintf("%s is a secret the server takes as an argument; the gateway never writes one in gateway.yaml: wrap the command in a script that reads it from the environment%s", where, describe(in)))
			continue
		case v == "" && !in.Required:
			if in.Type == "named" {
				s.Notes = append(s.Notes, fmt.Sprintf("optional argument %s left out%s", in.Name, describe(in)))
			}
			continue
		case v == "":
			v = "<" + in.label() + ">"
			s.NotImported = append(s.NotImported, fmt.Sprintf("%s is required and has no default: replace %s in the command%s", where, v, describe(in)))
		case len(missing) > 0:
			s.NotImported = append(s.NotImported, fmt.Sprintf("%s: no value for %s: replace them in the command%s", where, strings.Join(missing, ", "), describe(in)))
		}
		if in.Type == "named" && in.Name != "" {
			out = append(out, in.Name)
		}
		out = append(out, v)
	}
	return out
}

func translatePackage(short, from string, m map[string]any) (*Server, string) {
	typ := str(m["registryType"])
	id := str(m["identifier"])
	version := str(m["version"])
	if id == "" {
		return nil, "no identifier"
	}
	if t, _ := m["transport"].(map[string]any); t != nil && str(t["type"]) != "" && str(t["type"]) != "stdio" {
		return nil, fmt.Sprintf("a package that serves %s itself (%s): start it yourself, then import its url", str(t["type"]), str(t["url"]))
	}
	if typ == "mcpb" {
		return nil, "an MCP bundle (.mcpb): the gateway does not unpack bundles; install it and name its command"
	}
	hint := str(m["runtimeHint"])
	if hint == "" {
		hint = defaultRunner[typ]
	}
	if hint == "" {
		return nil, fmt.Sprintf("registryType %q with no runtimeHint: nothing says how to run it", typ)
	}
	s := &Server{Source: short, From: from}
	runtimeArgs, _ := m["runtimeArguments"].([]any)
	packageArgs, _ := m["packageArguments"].([]any)
	rargs := s.arguments(runtimeArgs, "runtimeArguments")
	pargs := s.arguments(packageArgs, "packageArguments")
	envs, _ := m["environmentVariables"].([]any)
	var optional []string
	for i, e := range envs {
		em, ok := e.(map[string]any)
		if !ok {
			s.NotImported = append(s.NotImported, fmt.Sprintf("environmentVariables[%d]: not an object", i))
			continue
		}
		in := readInput(em)
		if in.Name == "" {
			continue
		}
		v, missing, secret := in.resolve()
		switch {
		case secret || IsSecret(in.Name, v):
			s.Env = append(s.Env, EnvVar{Name: in.Name, FromEnv: true, Note: "a secret: set " + in.Name + " in the gateway's environment" + describe(in)})
		case v != "" && len(missing) == 0:
			note := ""
			if in.Value == "" {
				note = "the server's default"
			}
			s.Env = append(s.Env, EnvVar{Name: in.Name, Value: v, Note: note})
		case in.Required || len(missing) > 0:
			s.Env = append(s.Env, EnvVar{Name: in.Name, FromEnv: true, Note: "required: set " + in.Name + " in the gateway's environment" + describe(in)})
		default:
			optional = append(optional, in.Name)
		}
	}
	if len(optional) > 0 {
		s.Notes = append(s.Notes, "optional variables it reads, not set: "+strings.Join(optional, ", "))
	}
	runner := strings.Fields(hint)
	prog := runner[0]
	cmd := slices.Clone(runner)
	switch prog {
	case "npx", "bunx":
		cmd = append(cmd, rargs...)
		if prog == "npx" && !slices.Contains(rargs, "-y") && !slices.Contains(rargs, "--yes") {
			cmd = append(cmd, "-y")
		}
		cmd = append(cmd, withVersion(id, "@", version))
		cmd = append(cmd, pargs...)
	case "uvx":
		cmd = append(cmd, rargs...)
		cmd = append(cmd, withVersion(id, "==", version))
		cmd = append(cmd, pargs...)
	case "dnx":
		cmd = append(cmd, rargs...)
		cmd = append(cmd, withVersion(id, "@", version))
		if len(pargs) > 0 {
			cmd = append(append(cmd, "--"), pargs...)
		}
	case "docker", "podman":
		if len(runner) == 1 {
			cmd = append(cmd, "run", "-i", "--rm")
		}
		cmd = append(cmd, rargs...)
		for _, e := range s.Env {
			cmd = append(cmd, "-e", e.Name)
		}
		image := id
		if version != "" && !strings.Contains(id[strings.LastIndex(id, "/")+1:], ":") && !strings.Contains(id, "@") {
			image += ":" + version
		}
		cmd = append(cmd, image)
		cmd = append(cmd, pargs...)
	default:
		cmd = append(cmd, rargs...)
		cmd = append(cmd, id)
		cmd = append(cmd, pargs...)
	}
	s.Command = cmd
	s.Sandbox = suggestSandbox(cmd)
	return s, ""
}

func withVersion(id, sep, version string) string {
	if version == "" || version == "latest" {
		return id
	}
	return id + sep + version
}

func translateRemote(short, from string, m map[string]any) (*Server, string) {
	s := &Server{Source: short, From: from}
	switch typ := str(m["type"]); typ {
	case "streamable-http", "http", "":
	case "sse":
		s.Notes = append(s.Notes, "an HTTP+SSE server: the gateway tries Streamable HTTP first and falls back to it")
	default:
		return nil, fmt.Sprintf("type %q", typ)
	}
	vars, _ := m["variables"].(map[string]any)
	u, missing, secret := input{Value: str(m["url"]), Variables: vars}.resolve()
	switch {
	case u == "":
		return nil, "no url"
	case secret:
		return nil, "its url holds a secret variable; the gateway never writes one in gateway.yaml"
	case len(missing) > 0:
		return nil, fmt.Sprintf("the url needs %s, which have no default: write the url in gateway.yaml yourself", strings.Join(missing, ", "))
	}
	if why := checkURL(u); why != "" {
		return nil, why
	}
	s.URL = u
	headers, _ := m["headers"].([]any)
	for i, h := range headers {
		hm, ok := h.(map[string]any)
		if !ok {
			s.NotImported = append(s.NotImported, fmt.Sprintf("headers[%d]: not an object", i))
			continue
		}
		in := readInput(hm)
		v, missing, secret := in.resolve()
		switch {
		case strings.EqualFold(in.Name, "Authorization"):
			s.BearerEnv = envName(short) + "_TOKEN"
			s.BearerNote = "set " + s.BearerEnv + " in the gateway's environment to the bearer token" + describe(in)
		case secret || IsSecret(in.Name, v):
			s.NotImported = append(s.NotImported, fmt.Sprintf("header %s holds a secret%s; the gateway sends a secret only as auth (bearer_env, bearer_file, oauth), never from gateway.yaml", in.Name, describe(in)))
		case v != "" && len(missing) == 0:
			s.Headers = append(s.Headers, Header{Name: in.Name, Value: v})
		case in.Required:
			s.NotImported = append(s.NotImported, fmt.Sprintf("header %s is required and has no value%s: add it under headers", in.Name, describe(in)))
		}
	}
	return s, ""
}
