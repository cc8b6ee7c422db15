package auth_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
)

const (
	digestA = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
	digestB = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
)

func jwtCfg(mod func(*auth.JWTConfig)) *auth.JWTConfig {
	j := &auth.JWTConfig{
		Issuer:   "https://auth.example.com",
		Audience: "https://mcp.example.com/mcp",
		JWKSURL:  "https://auth.example.com/.well-known/jwks.json",
	}
	if mod != nil {
		mod(j)
	}
	return j
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  auth.Config
		want []string // "key: message part", one per problem, in order
	}{
		{"digest not hex", auth.Config{Principals: []auth.PrincipalConfig{
			{Name: "a", TokenSHA256: digestA}, {Name: "b", TokenSHA256: "xyz"}}},
			[]string{"auth.principals[1].token_sha256: is not 64 hex digits"}},
		{"digest too short", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA[:62]}}},
			[]string{"auth.principals[0].token_sha256: is not 64 hex digits"}},
		{"same digest twice", auth.Config{Principals: []auth.PrincipalConfig{
			{Name: "a", TokenSHA256: digestA}, {Name: "b", TokenSHA256: strings.ToUpper(digestA)}}},
			[]string{"auth.principals[1].token_sha256: the same token as auth.principals[0]"}},
		{"duplicate name", auth.Config{Principals: []auth.PrincipalConfig{
			{Name: "ci", TokenSHA256: digestA}, {Name: "ci", TokenEnv: "CI_TOKEN"}}},
			[]string{`auth.principals[1].name: "ci" is also the name of auth.principals[0]`}},
		{"missing name", auth.Config{Principals: []auth.PrincipalConfig{{TokenEnv: "T"}}},
			[]string{"auth.principals[0].name: missing"}},
		{"bad name", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a b", TokenEnv: "T"}}},
			[]string{`auth.principals[0].name: "a b" is not a valid name`}},
		{"two sources", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA, TokenEnv: "T"}}},
			[]string{"auth.principals[0]: set only one of token_sha256, token_env or token_file, not token_sha256 and token_env"}},
		{"three sources", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA, TokenEnv: "T", TokenFile: "t"}}},
			[]string{"auth.principals[0]: set only one of token_sha256, token_env or token_file, not token_sha256 and token_env and token_file"}},
		{"no source", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a"}}},
			[]string{"auth.principals[0]: no token: set one of token_sha256, token_env or token_file"}},
		{"bad env name", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenEnv: "1-TOKEN"}}},
			[]string{`auth.principals[0].token_env: "1-TOKEN" is not an environment variable name`}},
		{"bad group", auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenEnv: "T", Groups: []string{"ok", "not ok"}}}},
			[]string{`auth.principals[0].groups[1]: "not ok" is not a valid group name`}},
		{"jwt without issuer", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Issuer = "" })},
			[]string{"auth.jwt.issuer: missing"}},
		{"jwt without audience", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Audience = "" })},
			[]string{"auth.jwt.audience: missing"}},
		{"jwt without keys", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSURL = "" })},
			[]string{"auth.jwt: no keys: set jwks_url"}},
		{"jwt with both keys", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSFile = "jwks.json" })},
			[]string{"auth.jwt: set jwks_url or jwks_file, not both"}},
		{"empty jwt", auth.Config{JWT: &auth.JWTConfig{}},
			[]string{"auth.jwt.issuer: missing", "auth.jwt.audience: missing", "auth.jwt: no keys"}},
		{"issuer not a URL", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Issuer = "auth.example.com" })},
			[]string{`auth.jwt.issuer: "auth.example.com": want an absolute https URL`}},
		{"jwks_url not a URL", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSURL = "ftp://x/jwks" })},
			[]string{`auth.jwt.jwks_url: "ftp://x/jwks": want an absolute https URL`}},
		{"jwks_url in clear", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSURL = "http://auth.example.com/jwks" })},
			[]string{`auth.jwt.jwks_url: "http://auth.example.com/jwks": must use https`}},
		{"jwks_url with password", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSURL = "https://u:p@auth.example.com/jwks" })},
			[]string{`auth.jwt.jwks_url: "https://u:p@auth.example.com/jwks": must not contain a user or password`}},
		{"alg none", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Algorithms = []string{"RS256", "none"} })},
			[]string{`auth.jwt.algorithms[1]: "none" is never allowed`}},
		{"alg HS256", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Algorithms = []string{"HS256"} })},
			[]string{`auth.jwt.algorithms[0]: "HS256" is refused: HMAC algorithms need a shared secret`}},
		{"alg unknown", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Algorithms = []string{"rs256"} })},
			[]string{`auth.jwt.algorithms[0]: "rs256" is not supported (supported: RS256,`}},
		{"leeway too long", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Leeway = config.Duration(10 * time.Minute) })},
			[]string{"auth.jwt.leeway: 10m0s is out of range (at most 5m0s)"}},
		{"negative leeway", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Leeway = config.Duration(-time.Second) })},
			[]string{"auth.jwt.leeway: -1s is out of range"}},
		{"refresh too short", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.Refresh = config.Duration(time.Second) })},
			[]string{"auth.jwt.refresh: 1s is out of range (1m0s..24h0m0s)"}},
		{"refresh with a file", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) {
			j.JWKSURL, j.JWKSFile, j.Refresh = "", "jwks.json", config.Duration(time.Hour)
		})},
			[]string{"auth.jwt.refresh: applies to jwks_url only"}},
		{"bad authorization server", auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) {
			j.AuthorizationServers = []string{"https://ok.example.com", "not a url"}
		})},
			[]string{`auth.jwt.authorization_servers[1]: "not a url": want an absolute https URL`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, _ := normalize(t, t.TempDir(), &tt.cfg)
			var got []string
			for _, e := range errs {
				if !strings.HasSuffix(e.File, "gateway.yaml") {
					t.Errorf("error names file %q", e.File)
				}
				got = append(got, e.Key+": "+e.Msg)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// A token pasted into token_sha256 by mistake is not repeated in the
// error.
func TestNormalizeDoesNotEchoTokenSHA256(t *testing.T) {
	const pasted = "my-very-secret-token-0123456789"
	c := auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: pasted}}}
	errs, _ := normalize(t, t.TempDir(), &c)
	if len(errs) != 1 {
		t.Fatalf("got %v, want one problem", errs)
	}
	if strings.Contains(errs[0].Error(), pasted) {
		t.Errorf("the error repeats the value: %v", errs[0])
	}
}

func TestNormalizeDefaultsAndPaths(t *testing.T) {
	dir := t.TempDir()
	c := auth.Config{
		Principals: []auth.PrincipalConfig{
			{Name: "a", TokenSHA256: strings.ToUpper(digestA)},
			{Name: "b", TokenFile: "secrets/b.token"},
			{Name: "c", TokenFile: "/abs/c.token"},
		},
		JWT: &auth.JWTConfig{Issuer: "https://auth.example.com", Audience: "https://mcp.example.com/mcp", JWKSFile: "jwks.json"},
	}
	errs, env := normalize(t, dir, &c)
	if len(errs) > 0 {
		t.Fatalf("Normalize: %v", errs)
	}
	if got := c.Principals[0].TokenSHA256; got != digestA {
		t.Errorf("token_sha256 = %s, want it in lower case", got)
	}
	wantB := filepath.Join(dir, "secrets/b.token")
	if got := c.Principals[1].TokenFile; got != wantB {
		t.Errorf("token_file = %s, want %s", got, wantB)
	}
	j := c.JWT
	wantJWKS := filepath.Join(dir, "jwks.json")
	if j.JWKSFile != wantJWKS {
		t.Errorf("jwks_file = %s, want %s", j.JWKSFile, wantJWKS)
	}
	files, _ := env.Watched()
	for _, f := range []string{wantB, "/abs/c.token", wantJWKS} {
		if !slices.Contains(files, f) {
			t.Errorf("%s is not watched (watched: %v)", f, files)
		}
	}
	if !slices.Equal(j.Algorithms, auth.DefaultAlgorithms) || slices.ContainsFunc(j.Algorithms, func(a string) bool {
		return a == "none" || strings.HasPrefix(a, "HS")
	}) {
		t.Errorf("algorithms = %v", j.Algorithms)
	}
	if time.Duration(j.Leeway) != 30*time.Second || j.PrincipalClaim != "sub" || j.GroupsClaim != "groups" || j.Refresh != 0 {
		t.Errorf("defaults: leeway %s, principal_claim %q, groups_claim %q, refresh %s", j.Leeway, j.PrincipalClaim, j.GroupsClaim, j.Refresh)
	}
	if !slices.Equal(j.AuthorizationServers, []string{"https://auth.example.com"}) {
		t.Errorf("authorization_servers = %v, want [issuer]", j.AuthorizationServers)
	}

	u := auth.Config{JWT: jwtCfg(func(j *auth.JWTConfig) { j.JWKSURL = "http://127.0.0.1:5556/keys" })}
	mustNormalize(t, &u)
	if time.Duration(u.JWT.Refresh) != 10*time.Minute {
		t.Errorf("refresh = %s, want 10m", u.JWT.Refresh)
	}
}

func TestEnabled(t *testing.T) {
	if (auth.Config{AllowAnonymous: true}).Enabled() {
		t.Error("an empty config is enabled")
	}
	if !(auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenEnv: "T"}}}).Enabled() {
		t.Error("principals do not enable auth")
	}
	if !(auth.Config{JWT: jwtCfg(nil)}).Enabled() {
		t.Error("jwt does not enable auth")
	}
}

func TestCheckExposure(t *testing.T) {
	none := auth.Config{}
	withPrincipal := auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenEnv: "T"}}}
	withJWT := auth.Config{JWT: jwtCfg(nil)}
	anonymous := auth.Config{AllowAnonymous: true}
	tests := []struct {
		cfg     auth.Config
		listen  string
		refused bool
	}{
		{none, "127.0.0.1:8080", false},
		{none, "127.0.0.5:0", false},
		{none, "[::1]:8080", false},
		{none, "localhost:8080", false},
		{none, "LocalHost:8080", false},
		{none, "0.0.0.0:8080", true},
		{none, ":8080", true},
		{none, "[::]:8080", true},
		{none, "192.168.1.20:8080", true},
		{none, "10.0.0.1:8080", true},
		{none, "mcp.example.com:8080", true},
		{none, "localhost.example.com:8080", true},
		{withPrincipal, "0.0.0.0:8080", false},
		{withJWT, "192.168.1.20:8080", false},
		{anonymous, "0.0.0.0:8080", false},
	}
	for _, tt := range tests {
		err := auth.CheckExposure(tt.cfg, tt.listen)
		if (err != nil) != tt.refused {
			t.Errorf("CheckExposure(enabled=%v, anonymous=%v, %q) = %v, want refused=%v",
				tt.cfg.Enabled(), tt.cfg.AllowAnonymous, tt.listen, err, tt.refused)
			continue
		}
		if err != nil {
			for _, want := range []string{tt.listen, "auth.principals", "auth.jwt", "127.0.0.1", "auth.allow_anonymous: true"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("CheckExposure(%q) = %q, want it to mention %q", tt.listen, err, want)
				}
			}
		}
	}
	if err := auth.CheckExposure(none, "no-port"); err == nil {
		t.Error("a listen address without a port is accepted")
	}
}
