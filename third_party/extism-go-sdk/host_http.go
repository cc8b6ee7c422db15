package extism

// wasmgate patch (see PATCHES.md): the host performs the guest's HTTP
// requests, and failures are reported to the guest instead of trapping.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// HTTPRequestFunc performs a guest's HTTP request for the host. It returns
// the response's status, headers and whole body, or an error whose text is
// reported to the guest. See PluginConfig.HTTPRequest.
type HTTPRequestFunc func(req *http.Request) (status int, header http.Header, body []byte, err error)

// hostHTTPRequest is http_request with PluginConfig.HTTPRequest set. On
// failure http_status_code returns 0 and the returned block holds the
// error's text; only a failure to read or write guest memory traps.
func hostHTTPRequest(ctx context.Context, plugin *Plugin, requestOffset, bodyOffset uint64) uint64 {
	cp := plugin.currentPlugin()
	clear(plugin.LastResponseHeaders)
	plugin.LastStatusCode = 0

	requestJSON, err := cp.ReadBytes(requestOffset)
	if err != nil {
		panic(fmt.Errorf("failed to read http request from memory: %v", err))
	}
	cp.Free(requestOffset)
	var body []byte
	if bodyOffset != 0 {
		if body, err = cp.ReadBytes(bodyOffset); err != nil {
			panic(fmt.Errorf("failed to read http request body from memory: %v", err))
		}
		cp.Free(bodyOffset)
	}

	status, header, out, err := guestHTTPRequest(ctx, plugin.httpRequest, requestJSON, body)
	if err != nil {
		out = []byte(err.Error())
	} else {
		plugin.LastStatusCode = status
		if plugin.LastResponseHeaders != nil {
			for k, v := range header {
				plugin.LastResponseHeaders[strings.ToLower(k)] = strings.Join(v, ",")
			}
		}
	}
	if len(out) == 0 {
		return 0
	}
	offset, err := cp.WriteBytes(out)
	if err != nil {
		panic(fmt.Errorf("http response (%d bytes) does not fit in the plugin's memory: %v", len(out), err))
	}
	return offset
}

func guestHTTPRequest(ctx context.Context, do HTTPRequestFunc, requestJSON, body []byte) (int, http.Header, []byte, error) {
	var request HttpRequest
	if err := json.Unmarshal(requestJSON, &request); err != nil {
		return 0, nil, nil, fmt.Errorf("invalid http request: %v", err)
	}
	if request.Method == "" {
		request.Method = "GET"
	}
	request.Method = strings.ToUpper(request.Method)
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, request.Method, request.Url, r)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("invalid http request: %v", err)
	}
	for k, v := range request.Headers {
		req.Header.Set(k, v)
	}
	return do(req)
}
