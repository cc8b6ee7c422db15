package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// stripJSONC turns JSON with comments (// and /* */) and trailing commas,
// as VS Code and Cursor accept in their mcp.json, into plain JSON. Text
// inside strings is kept as written. A comment left open is an error.
func stripJSONC(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM, as editors on Windows write
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return nil, fmt.Errorf("a /* comment at byte %d is never closed", i)
			}
			// Keep the line count, so a JSON error's offset still points
			// near the right line.
			out = append(out, bytes.Repeat([]byte{'\n'}, bytes.Count(data[i:i+2+end+2], []byte{'\n'}))...)
			out = append(out, ' ')
			i += 2 + end + 1
		default:
			out = append(out, c)
		}
	}
	return dropTrailingCommas(out), nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// dropTrailingCommas removes the commas left before } or ] once comments
// between them were dropped.
func dropTrailingCommas(data []byte) []byte {
	inString, escaped := false, false
	last := -1 // the index of the last comma outside a string, with only blanks after it
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString, last = true, -1
		case c == ',':
			last = i
		case c == '}' || c == ']':
			if last >= 0 {
				data[last] = ' '
			}
			last = -1
		case isBlank(c):
		default:
			last = -1
		}
	}
	return data
}

// decodeJSONC decodes JSON with comments into v, saying where it failed.
func decodeJSONC(data []byte, v any) error {
	plain, err := stripJSONC(data)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(plain, v); err != nil {
		var se *json.SyntaxError
		if ok := asSyntax(err, &se); ok {
			line := 1 + bytes.Count(plain[:min(int(se.Offset), len(plain))], []byte{'\n'})
			return fmt.Errorf("line %d: %v", line, err)
		}
		return err
	}
	return nil
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}
