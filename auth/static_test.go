package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func lookup(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// threePrincipals returns a config with a principal of each kind and the
// environment its token_env needs.
func threePrincipals(t *testing.T, s *secrets) (auth.Config, map[string]string) {
	alice := s.add("alice-4b1d9c0e7f2a6b3c5d8e")
	bob := s.add("bob-9f8e7d6c5b4a39281706")
	carol := s.add("carol-0a1b2c3d4e5f60718293")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "carol.token"), "\n  "+carol+"\n")
	c := auth.Config{Principals: []auth.PrincipalConfig{
		{Name: "alice", TokenSHA256: sha(alice), Groups: []string{"admins"}},
		{Name: "bob", TokenEnv: "BOB_TOKEN", Groups: []string{"ci", "readers"}},
		{Name: "carol", TokenFile: "carol.token"},
	}}
	errs, _ := normalize(t, dir, &c)
	if len(errs) > 0 {
		t.Fatalf("Normalize: %v", errs)
	}
	return c, map[string]string{"BOB_TOKEN": " " + bob + "\n"}
}

func TestStaticTokens(t *testing.T) {
	s := newSecrets(t)
	c, vars := threePrincipals(t, s)
	a := newAuth(t, s, c, auth.Options{LookupEnv: lookup(vars)})
	tests := []struct {
		header     []string
		wantName   string
		wantGroups []string
		wantErr    error
	}{
		{[]string{"Bearer alice-4b1d9c0e7f2a6b3c5d8e"}, "alice", []string{"admins"}, nil},
		{[]string{"Bearer bob-9f8e7d6c5b4a39281706"}, "bob", []string{"ci", "readers"}, nil},
		{[]string{"Bearer carol-0a1b2c3d4e5f60718293"}, "carol", nil, nil},
		{[]string{"bearer alice-4b1d9c0e7f2a6b3c5d8e"}, "alice", []string{"admins"}, nil},
		{[]string{"BEARER   bob-9f8e7d6c5b4a39281706  "}, "bob", []string{"ci", "readers"}, nil},
		{[]string{"Bearer alice-4b1d9c0e7f2a6b3c5d8f"}, "", nil, auth.ErrInvalidToken},
		{[]string{"Bearer " + sha("alice-4b1d9c0e7f2a6b3c5d8e")}, "", nil, auth.ErrInvalidToken}, // the digest is not the token
		{[]string{"Bearer alice"}, "", nil, auth.ErrInvalidToken},
		{[]string{"Bearer "}, "", nil, auth.ErrInvalidToken},
		{[]string{"Bearer"}, "", nil, auth.ErrInvalidToken},
		{[]string{"Bearer " + strings.Repeat("x", 17<<10)}, "", nil, auth.ErrInvalidToken},
		{[]string{"Bearer alice-4b1d9c0e7f2a6b3c5d8e", "Bearer bob-9f8e7d6c5b4a39281706"}, "", nil, auth.ErrInvalidToken},
		{nil, "", nil, auth.ErrNoToken},
		{[]string{"Basic YWxpY2U6c2VjcmV0"}, "", nil, auth.ErrNoToken},
		{[]string{"alice-4b1d9c0e7f2a6b3c5d8e"}, "", nil, auth.ErrNoToken},
	}
	for i, tt := range tests {
		p, err := a.Authenticate(request(tt.header...))
		s.err(err)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("case %d: err = %v, want %v", i, err, tt.wantErr)
			}
			other := auth.ErrNoToken
			if tt.wantErr == auth.ErrNoToken {
				other = auth.ErrInvalidToken
			}
			if errors.Is(err, other) {
				t.Errorf("case %d: %v is also %v", i, err, other)
			}
			if p.Name != "" {
				t.Errorf("case %d: principal %q with an error", i, p.Name)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if p.Name != tt.wantName || !slices.Equal(p.Groups, tt.wantGroups) || p.Claims != nil {
			t.Errorf("case %d: got %+v, want %s %v", i, p, tt.wantName, tt.wantGroups)
		}
	}

	// Groups are the caller's copy.
	p, _ := a.Authenticate(request("Bearer alice-4b1d9c0e7f2a6b3c5d8e"))
	p.Groups[0] = "changed"
	if p, _ := a.Authenticate(request("Bearer alice-4b1d9c0e7f2a6b3c5d8e")); p.Groups[0] != "admins" {
		t.Errorf("a caller changed the principal's groups: %v", p.Groups)
	}
}

// Without principals and jwt every token is refused and no header is
// ErrNoToken.
func TestNoAuthConfigured(t *testing.T) {
	s := newSecrets(t)
	a := newAuth(t, s, auth.Config{}, auth.Options{})
	if _, err := a.Authenticate(request()); !errors.Is(s.err(err), auth.ErrNoToken) {
		t.Errorf("no header: %v", err)
	}
	if _, err := a.Authenticate(request("Bearer " + s.add("some-token-1234567890"))); !errors.Is(s.err(err), auth.ErrInvalidToken) {
		t.Errorf("a token: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	s := newSecrets(t)
	dir := t.TempDir()
	shared := s.add("shared-token-5f4e3d2c1b0a")
	writeFile(t, filepath.Join(dir, "empty.token"), " \n")
	writeFile(t, filepath.Join(dir, "shared.token"), shared)
	tests := []struct {
		name string
		p    []auth.PrincipalConfig
		vars map[string]string
		key  string
		msg  string
	}{
		{"unset variable", []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA}, {Name: "ci", TokenEnv: "CI_TOKEN"}}, nil,
			"auth.principals[1].token_env", "environment variable CI_TOKEN is not set or empty"},
		{"empty variable", []auth.PrincipalConfig{{Name: "ci", TokenEnv: "CI_TOKEN"}}, map[string]string{"CI_TOKEN": "  "},
			"auth.principals[0].token_env", "environment variable CI_TOKEN is not set or empty"},
		{"missing file", []auth.PrincipalConfig{{Name: "a", TokenFile: "nope.token"}}, nil,
			"auth.principals[0].token_file", `"` + filepath.Join(dir, "nope.token") + `": no such file or directory`},
		{"empty file", []auth.PrincipalConfig{{Name: "a", TokenFile: "empty.token"}}, nil,
			"auth.principals[0].token_file", `"` + filepath.Join(dir, "empty.token") + `" is empty`},
		{"same token twice", []auth.PrincipalConfig{{Name: "a", TokenFile: "shared.token"}, {Name: "b", TokenEnv: "B"}},
			map[string]string{"B": shared}, "auth.principals[1].token_env", "the same token as auth.principals[0]; give each principal its own token"},
		{"same token as a digest", []auth.PrincipalConfig{{Name: "a", TokenSHA256: sha(shared)}, {Name: "b", TokenFile: "shared.token"}},
			nil, "auth.principals[1].token_file", "the same token as auth.principals[0]; give each principal its own token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := auth.Config{Principals: tt.p}
			if errs, _ := normalize(t, dir, &c); len(errs) > 0 {
				t.Fatalf("Normalize: %v", errs)
			}
			_, err := auth.New(t.Context(), c, auth.Options{LookupEnv: lookup(tt.vars), Logger: s.logger})
			s.err(err)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("New = %v, want a *config.Error", err)
			}
			if ce.File != filepath.Join(dir, "gateway.yaml") || ce.Key != tt.key || ce.Msg != tt.msg {
				t.Errorf("New = %q\nwant %s: %s: %s", err, filepath.Join(dir, "gateway.yaml"), tt.key, tt.msg)
			}
		})
	}
}

// A short token works but draws a warning naming the key, not the token.
func TestShortTokenWarning(t *testing.T) {
	s := newSecrets(t)
	short := s.add("tiny-tok")
	newAuth(t, s, auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenEnv: "T"}}},
		auth.Options{LookupEnv: lookup(map[string]string{"T": short})})
	if out := s.log.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "auth.principals[0].token_env") {
		t.Errorf("log = %q, want a warning naming the key", out)
	}
}
