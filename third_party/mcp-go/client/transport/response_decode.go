package transport

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
)

// maxFastResponse is the longest application/json answer decodeResponse
// reads whole before decoding it.
const maxFastResponse = 1 << 20

// decodeResponse decodes one JSON-RPC response from body (length bytes
// long, or -1 when unknown) into r, exactly as
// json.NewDecoder(body).Decode(r) does: the same value, the same error.
// The common answer, an object of "jsonrpc", an integer or plain string
// "id" and an object or array "result", is read without reflection;
// anything else is given to the decoder, with the same bytes and the same
// read error. (wasmgate patch: upstream decoded every answer with
// encoding/json's decoder, about 4% of the gateway's CPU per call through
// an HTTP upstream.)
func decodeResponse(body io.Reader, length int64, r *JSONRPCResponse) error {
	b, err, whole := readBody(body, length)
	switch {
	case err != nil:
		return json.NewDecoder(io.MultiReader(bytes.NewReader(b), failedRead{err})).Decode(r)
	case !whole:
		return json.NewDecoder(io.MultiReader(bytes.NewReader(b), body)).Decode(r)
	case parseResponse(b, r):
		return nil
	}
	return json.NewDecoder(bytes.NewReader(b)).Decode(r)
}

// readBody reads body to its end, at most maxFastResponse bytes: whole
// when it reached the end, err the read error that stopped it.
func readBody(body io.Reader, length int64) (b []byte, err error, whole bool) {
	size := 512
	if length >= 0 && length < maxFastResponse {
		size = int(length) + 1 // room for the read that finds the end
	}
	b = make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			if len(b) >= maxFastResponse {
				return b, nil, false
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil, true
		}
		if err != nil {
			return b, err, false
		}
	}
}

type failedRead struct{ err error }

func (e failedRead) Read([]byte) (int, error) { return 0, e.err }

// parseResponse decodes b into r when b is exactly one object with the
// members "jsonrpc" (a plain string), "id" (a plain string or an integer
// of at most 15 digits) and "result" (an object or an array), each once,
// in any order, and nothing else but white space; it reports whether it
// did. r is untouched when it did not.
func parseResponse(b []byte, r *JSONRPCResponse) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	var out JSONRPCResponse
	var seen uint8
	for i++; ; {
		key, j, ok := plainString(b, skipSpace(b, i))
		if !ok {
			return false
		}
		if i = skipSpace(b, j); i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		switch key {
		case "jsonrpc":
			if seen&1 != 0 {
				return false
			}
			seen |= 1
			if out.JSONRPC, i, ok = plainString(b, i); !ok {
				return false
			}
		case "id":
			if seen&2 != 0 || i >= len(b) {
				return false
			}
			seen |= 2
			if b[i] == '"' {
				var s string
				if s, i, ok = plainString(b, i); !ok {
					return false
				}
				out.ID = mcp.NewRequestId(s)
			} else {
				var n int64
				if n, i, ok = smallInt(b, i); !ok {
					return false
				}
				out.ID = mcp.NewRequestId(n)
			}
		case "result":
			if seen&4 != 0 {
				return false
			}
			seen |= 4
			j, ok := compositeEnd(b, i)
			if !ok || !json.Valid(b[i:j]) {
				return false
			}
			out.Result, i = json.RawMessage(b[i:j:j]), j
		default:
			return false
		}
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '}' {
			return false
		}
		break
	}
	if seen != 7 || skipSpace(b, i+1) != len(b) {
		return false
	}
	*r = out
	return true
}

// skipSpace is the index of the first byte of b at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the string at b[i]: one of printable ASCII without a
// backslash, which is the string its bytes spell. It returns the string
// and the index after it.
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return string(b[i+1 : j]), j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", 0, false
		}
	}
	return "", 0, false
}

// smallInt reads the integer at b[i]: -?(0|[1-9][0-9]{0,14}), which a
// float64 holds exactly (so it is what RequestId's decoding makes of it),
// not followed by a fraction, an exponent or another digit.
func smallInt(b []byte, i int) (int64, int, bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	digits := i - start
	if digits == 0 || digits > 15 || (b[start] == '0' && (digits > 1 || neg)) {
		return 0, 0, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, 0, false
	}
	if neg {
		n = -n
	}
	return n, i, true
}

// compositeEnd is the index after the object or array that starts at
// b[i], when b is valid JSON there (json.Valid checks it).
func compositeEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || (b[i] != '{' && b[i] != '[') {
		return 0, false
	}
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
