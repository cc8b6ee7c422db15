//go:build wasip1

package pdk

import (
	"errors"

	extism "github.com/extism/go-pdk"
)

// HTTPResponse is a response to a request sent with HTTPSend.
type HTTPResponse struct {
	Status  int
	Headers map[string]string // lower-case names; a repeated header's values joined by ","
	Body    []byte
}

// HTTPSend sends req through the gateway and returns the whole response.
//
// The gateway sends it only to a host and port the plugin's allowed_hosts
// grants, follows redirects only to granted ones, bounds the response body
// by limits.http_response and the time by the call's limits.timeout. When
// it refuses or fails the request, HTTPSend returns an error carrying the
// gateway's reason. (With go-pdk's HTTPRequest.Send directly, the same
// failure is a response with status 0 whose body is the reason.)
func HTTPSend(req *extism.HTTPRequest) (HTTPResponse, error) {
	resp := req.Send()
	mem := resp.Memory()
	body := resp.Body()
	if mem.Offset() != 0 {
		mem.Free()
	}
	if resp.Status() == 0 {
		msg := string(body)
		if msg == "" {
			msg = "http request failed"
		}
		return HTTPResponse{}, errors.New(msg)
	}
	return HTTPResponse{Status: int(resp.Status()), Headers: resp.Headers(), Body: body}, nil
}
