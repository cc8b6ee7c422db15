package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// decodeBoth decodes data with decodeResponse (reading it through r when
// given) and with json's decoder, and fails t unless both give the same
// value and the same error.
func decodeBoth(t *testing.T, data []byte, length int64, wrap func(io.Reader) io.Reader) {
	t.Helper()
	var want, got JSONRPCResponse
	werr := json.NewDecoder(wrap(bytes.NewReader(data))).Decode(&want)
	gerr := decodeResponse(wrap(bytes.NewReader(data)), length, &got)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("%q: error %v, json's decoder %v", data, gerr, werr)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%q: decoded %#v, json's decoder %#v", data, got, want)
	}
}

func same(r io.Reader) io.Reader { return r }

var responseSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"8"}]}}`,
	`{"jsonrpc":"2.0","id":"abc","result":{}}` + "\n",
	` { "result" : [1,2,{"a":"}"}] , "id" : -42 , "jsonrpc" : "2.0" } `,
	`{"jsonrpc":"2.0","id":123456789012345,"result":{}}`,
	`{"jsonrpc":"2.0","id":1234567890123456,"result":{}}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
	`{"jsonrpc":"2.0","id":-0,"result":{}}`,
	`{"jsonrpc":"2.0","id":0,"result":{}}`,
	`{"jsonrpc":"2.0","id":01,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":"a\"b","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	`{"jsonrpc":"2.0","id":1,"result":"text"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"result":[]}`,
	`{"jsonrpc":"2.0","ID":1,"Result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":1,}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":"\u00e9\\"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":[}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}} trailing`,
	`{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[]}`,
	`{"jsonrpc":2,"id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"extra":true}`,
	`{}`,
	`[]`,
	``,
	`   `,
	`nul`,
}

func TestDecodeResponseAsJSONDecoder(t *testing.T) {
	for _, s := range responseSeeds {
		decodeBoth(t, []byte(s), int64(len(s)), same)
		decodeBoth(t, []byte(s), -1, same)
		decodeBoth(t, []byte(s), -1, iotest.OneByteReader)
		decodeBoth(t, []byte(s), int64(len(s)), iotest.DataErrReader)
		unmarshalSame(t, []byte(s))
	}
	// The common answer does not go to json's decoder.
	var r JSONRPCResponse
	if !parseResponse([]byte(responseSeeds[0]), &r) || r.ID.Value() != int64(1) ||
		string(r.Result) != `{"content":[{"type":"text","text":"8"}]}` || r.JSONRPC != "2.0" {
		t.Fatalf("parseResponse did not take the common answer: %#v", r)
	}
}

// A read error, or an answer longer than maxFastResponse, is decoded from
// the same stream as json's decoder would read it.
func TestDecodeResponseReadErrorAndLong(t *testing.T) {
	boom := errors.New("boom")
	ok := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, data := range []string{ok, ok[:20]} {
		var want, got JSONRPCResponse
		werr := json.NewDecoder(io.MultiReader(strings.NewReader(data), iotest.ErrReader(boom))).Decode(&want)
		gerr := decodeResponse(io.MultiReader(strings.NewReader(data), iotest.ErrReader(boom)), -1, &got)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) || !reflect.DeepEqual(want, got) {
			t.Fatalf("%q then an error: %#v, %v; json's decoder %#v, %v", data, got, gerr, want, werr)
		}
	}
	long := `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", maxFastResponse) + `"}}`
	decodeBoth(t, []byte(long), -1, same)
	decodeBoth(t, []byte(long), int64(len(long)), same)
}

// unmarshalSame fails t if parseResponse takes data (a line of a stdio
// server) and json.Unmarshal does not read it the same way.
func unmarshalSame(t *testing.T, data []byte) {
	t.Helper()
	var got, want JSONRPCResponse
	if !parseResponse(data, &got) {
		return
	}
	if err := json.Unmarshal(data, &want); err != nil || !reflect.DeepEqual(want, got) {
		t.Fatalf("%q: parseResponse %#v; json.Unmarshal %#v, %v", data, got, want, err)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range responseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeBoth(t, data, int64(len(data)), same)
		decodeBoth(t, data, -1, iotest.HalfReader)
		unmarshalSame(t, data)
	})
}
