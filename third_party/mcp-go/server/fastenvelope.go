package server

// wasmgate patch (new file, see PATCHES.md): the envelope and params of
// the common tools/call message read in one pass, without encoding/json.
//
// parseEnvelope and decodeCallToolRequest decode a tools/call twice with
// reflection (the envelope, then params, then the arguments into a map).
// fastToolCall reads the one shape most calls have, in one pass:
//
//	{"jsonrpc":"2.0","id":7,"method":"tools/call",
//	 "params":{"name":"calculate","arguments":{"a":5,"op":"add"}}}
//
// members in any order, names exactly as written here, each at most once;
// an id that is a string or an integer of at most 15 digits; strings of
// printable ASCII without escapes; arguments a flat object of such strings,
// numbers, booleans and nulls without a repeated name. For anything else it
// reports false and the message is decoded as before. What it returns is
// what the decoders give the same message (FuzzFastToolCall).

import (
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// fastToolCall returns the envelope of message, with its tools/call
// request decoded, when message has the shape above.
func fastToolCall(message []byte) (*messageEnvelope, bool) {
	env := &messageEnvelope{}
	var params []byte
	seen := 0 // bits: jsonrpc, id, method, params
	i := fwSpace(message, 0)
	if i >= len(message) || message[i] != '{' {
		return nil, false
	}
	i = fwSpace(message, i+1)
	for {
		key, end, ok := fwString(message, i)
		if !ok {
			return nil, false
		}
		i = fwSpace(message, end)
		if i >= len(message) || message[i] != ':' {
			return nil, false
		}
		i = fwSpace(message, i+1)
		var bit int
		switch string(key) {
		case "jsonrpc":
			bit = 1
			if _, end, ok = fwString(message, i); ok {
				env.JSONRPC = message[i:end:end]
			}
		case "id":
			bit = 2
			if i < len(message) && message[i] == '"' {
				var s []byte
				s, end, ok = fwString(message, i)
				env.id = string(s)
			} else {
				var n float64
				end, n, ok = fwInteger(message, i)
				env.id = n
			}
			if ok {
				env.ID = message[i:end:end]
			}
		case "method":
			bit = 4
			var s []byte
			s, end, ok = fwString(message, i)
			env.Method = mcp.MCPMethod(s)
		case "params":
			bit = 8
			if end, ok = fwParams(message, i); ok {
				params = message[i:end:end]
			}
		default:
			return nil, false
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
		i = fwSpace(message, end)
		if i >= len(message) {
			return nil, false
		}
		if message[i] == ',' {
			i = fwSpace(message, i+1)
			continue
		}
		if message[i] != '}' || fwSpace(message, i+1) != len(message) {
			return nil, false
		}
		break
	}
	if env.Method != mcp.MethodToolsCall || seen&8 == 0 {
		return nil, false
	}
	env.Params = params
	req := &mcp.CallToolRequest{}
	req.Method = string(env.Method)
	if !fwDecodeParams(params, &req.Params) {
		return nil, false
	}
	env.toolCall = req
	return env, true
}

func fwSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// fwString reads the string at b[i] when it is printable ASCII without
// escapes: its contents and its end.
func fwString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// fwInteger reads an integer of at most 15 digits (exact as a float64).
func fwInteger(b []byte, i int) (int, float64, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	k := j
	for k < len(b) && '0' <= b[k] && b[k] <= '9' {
		k++
	}
	if k == j || k-j > 15 || (b[j] == '0' && k-j > 1) {
		return 0, 0, false
	}
	if k < len(b) && (b[k] == '.' || b[k] == 'e' || b[k] == 'E') {
		return 0, 0, false
	}
	n, err := strconv.ParseFloat(string(b[i:k]), 64) // as encoding/json: "-0" is -0
	if err != nil {
		return 0, 0, false
	}
	return k, n, true
}

// fwNumber reads a JSON number (RFC 8259's grammar).
func fwNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// fwParams reads params: an object of name and arguments (each at most
// once), where arguments is a flat object. It returns its end.
func fwParams(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = fwSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	seen := 0
	for {
		key, end, ok := fwString(b, i)
		if !ok {
			return 0, false
		}
		i = fwSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = fwSpace(b, i+1)
		var bit int
		switch string(key) {
		case "name":
			bit = 1
			_, end, ok = fwString(b, i)
		case "arguments":
			bit = 2
			end, ok = fwFlatObject(b, i, nil)
		default:
			return 0, false
		}
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		i = fwSpace(b, end)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = fwSpace(b, i+1)
			continue
		case '}':
			return i + 1, true
		}
		return 0, false
	}
}

// fwFlatObject reads the flat object at b[i] (scalar members, no name
// twice), decoding it into m when m is not nil as encoding/json decodes
// into a map[string]any; it returns its end.
func fwFlatObject(b []byte, i int, m map[string]any) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = fwSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	var names [32][]byte
	n := 0
	for {
		key, end, ok := fwString(b, i)
		if !ok || n == len(names) {
			return 0, false
		}
		for _, k := range names[:n] {
			if string(k) == string(key) {
				return 0, false
			}
		}
		names[n] = key
		n++
		i = fwSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = fwSpace(b, i+1)
		if i >= len(b) {
			return 0, false
		}
		var v any
		switch c := b[i]; {
		case c == '"':
			var s []byte
			s, end, ok = fwString(b, i)
			if m != nil {
				v = string(s)
			}
		case c == 't' && len(b)-i >= 4 && string(b[i:i+4]) == "true":
			end, v = i+4, true
		case c == 'f' && len(b)-i >= 5 && string(b[i:i+5]) == "false":
			end, v = i+5, false
		case c == 'n' && len(b)-i >= 4 && string(b[i:i+4]) == "null":
			end, v = i+4, nil
		case c == '-' || ('0' <= c && c <= '9'):
			end, ok = fwNumber(b, i)
			if ok && m != nil {
				f, err := strconv.ParseFloat(string(b[i:end]), 64)
				if err != nil {
					return 0, false // out of range: encoding/json's error
				}
				v = f
			}
		default:
			return 0, false
		}
		if !ok {
			return 0, false
		}
		if m != nil {
			m[string(key)] = v
		}
		i = fwSpace(b, end)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = fwSpace(b, i+1)
			continue
		case '}':
			return i + 1, true
		}
		return 0, false
	}
}

// fwDecodeParams is CallToolParams.UnmarshalJSON of params that fwParams
// read.
func fwDecodeParams(params []byte, p *mcp.CallToolParams) bool {
	i := fwSpace(params, 1)
	for i < len(params) && params[i] != '}' {
		key, end, _ := fwString(params, i)
		i = fwSpace(params, fwSpace(params, end)+1) // past ':'
		switch string(key) {
		case "name":
			s, end, _ := fwString(params, i)
			p.Name = string(s)
			i = end
		case "arguments":
			m := map[string]any{}
			end, ok := fwFlatObject(params, i, m)
			if !ok {
				return false
			}
			p.RawArguments = append(json.RawMessage(nil), params[i:end]...)
			p.Arguments = m
			i = end
		}
		i = fwSpace(params, i)
		if i < len(params) && params[i] == ',' {
			i = fwSpace(params, i+1)
		}
	}
	return true
}
