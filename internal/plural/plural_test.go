package plural

import "testing"

func TestN(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "plugin", "0 plugins"},
		{1, "plugin", "1 plugin"},
		{2, "plugin", "2 plugins"},
		{1, "resource template", "1 resource template"},
		{3, "resource template", "3 resource templates"},
	} {
		if got := N(c.n, c.noun); got != c.want {
			t.Errorf("N(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
