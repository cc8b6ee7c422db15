package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestWithSubscribeFilter(t *testing.T) {
	var asked []string
	s := NewMCPServer("test", "1.0.0",
		WithResourceCapabilities(true, false),
		WithSubscribeFilter(func(ctx context.Context, uris []string, listen bool) error {
			if listen {
				return errors.New("resources/subscribe asked as subscriptions/listen")
			}
			asked = append(asked, uris...)
			switch uris[0] {
			case "test://ok":
				return nil
			case "test://gone":
				return fmt.Errorf("%s: %w", uris[0], mcp.ErrResourceNotFound)
			default:
				return errors.New("not yours")
			}
		}))
	for _, tc := range []struct {
		uri  string
		want int // 0: a result
	}{
		{"test://ok", 0},
		{"test://gone", mcp.RESOURCE_NOT_FOUND},
		{"test://denied", mcp.INVALID_PARAMS},
	} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"` + tc.uri + `"}}`
		resp := s.HandleMessage(context.Background(), json.RawMessage(msg))
		code, isErr := responseError(t, resp)
		if (tc.want == 0) == isErr || code != tc.want {
			data, _ := json.Marshal(resp)
			t.Errorf("resources/subscribe %s: answered %s, want error code %d (0: a result)", tc.uri, data, tc.want)
		}
	}
	if want := []string{"test://ok", "test://gone", "test://denied"}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("the filter was asked about %v, want %v", asked, want)
	}
}
