package mcphttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// NextEvent returns the data of the first event in buf that has at least
// one data field, and the unread remainder of buf. An event ends at a blank
// line or at the end of buf. A single data line is returned as a sub-slice
// of buf; several data lines are joined with '\n' into scratch, which is
// returned for reuse. Comments, other fields and events without data are
// skipped. ok is false when buf holds no further event with data.
func NextEvent(buf, scratch []byte) (data, rest, scratchOut []byte, ok bool) {
	var first []byte
	lines := 0
	scratch = scratch[:0]
	result := func() []byte {
		if lines == 1 {
			return first
		}
		return scratch
	}
	for len(buf) > 0 {
		var line []byte
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			line, buf = buf, nil
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) == 0 {
			if lines > 0 {
				return result(), buf, scratch, true
			}
			continue
		}
		var value []byte
		switch {
		case len(line) >= 5 && string(line[:5]) == "data:":
			value = line[5:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		case string(line) == "data":
			value = line[:0]
		default:
			continue // comment or another field
		}
		switch lines {
		case 0:
			first = value
		case 1:
			scratch = append(scratch, first...)
			fallthrough
		default:
			scratch = append(scratch, '\n')
			scratch = append(scratch, value...)
		}
		lines++
	}
	if lines > 0 {
		return result(), nil, scratch, true
	}
	return nil, nil, scratch, false
}

// Response returns the first JSON-RPC response in a body that is either
// application/json or text/event-stream: on a stream, the notifications
// and requests the server sends before its response are skipped.
func Response(contentType string, body []byte) ([]byte, error) {
	if IsJSON(contentType) {
		return body, nil
	}
	if !IsEventStream(contentType) {
		return nil, fmt.Errorf("unexpected Content-Type %q", contentType)
	}
	for rest := body; ; {
		var data []byte
		var ok bool
		data, rest, _, ok = NextEvent(rest, nil)
		if !ok {
			return nil, errors.New("event stream ended without a JSON-RPC response")
		}
		var probe struct {
			Method string `json:"method"`
		}
		if len(data) == 0 || json.Unmarshal(data, &probe) != nil || probe.Method != "" {
			continue
		}
		return data, nil
	}
}
