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

func TestIsSecret(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "x", true},
		{"BRAVE_API_KEY", "", true},
		{"DB_PASSWORD", "", true},
		{"DATABASE_URL", "postgresql://app:hunter2@db.example.com/app", true},
		{"DATABASE_URL", "postgresql://localhost/mydb", false},
		{"HEADER", "Bearer abc.def", true},
		{"X", "sk-abcdefghijklmnopqrstuvwx", true},
		{"LOG_LEVEL", "info", false},
		{"SLACK_TEAM_ID", "T01234567", false},
		{"MEMORY_FILE_PATH", "/path/to/memory.json", false},
	} {
		if got := IsSecret(tc.name, tc.value); got != tc.want {
			t.Errorf("IsSecret(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}
