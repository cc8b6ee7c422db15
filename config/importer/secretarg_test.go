package importer

import "testing"

func TestSecretArg(t *testing.T) {
	for _, tc := range []struct{ a, prev, want string }{
		{"postgresql://me:s3cret@db.example.com/app", "-y", "postgresql://me:<secret>@db.example.com/app"},
		{"postgresql://localhost/mydb", "-y", ""},
		{"--api-key=abc123", "x", "--api-key=<secret>"},
		{"abc123", "--token", "<secret>"},
		{"/srv/data", "--root", ""},
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "x", "<secret>"},
		{"--port=8080", "x", ""},
	} {
		got, secret := secretArg(tc.a, tc.prev)
		if tc.want == "" {
			if secret || got != tc.a {
				t.Errorf("secretArg(%q, %q) = %q, %v; want it unchanged", tc.a, tc.prev, got, secret)
			}
			continue
		}
		if !secret || got != tc.want {
			t.Errorf("secretArg(%q, %q) = %q, %v; want %q", tc.a, tc.prev, got, secret, tc.want)
		}
	}
}
