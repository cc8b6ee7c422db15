package spell

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"timeout", "start_timeout", "concurrency", "max_message", "max_tools"}
	for _, tc := range []struct{ word, want string }{
		{"timout", "timeout"},
		{"Timeout", "timeout"},
		{"timeout", ""}, // the same word: nothing to suggest
		{"concurency", "concurrency"},
		{"max_tool", "max_tools"},
		{"zzz", ""},
		{"ab", ""},
	} {
		if got := Nearest(tc.word, known); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}
