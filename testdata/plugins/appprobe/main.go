//go:build wasip1

// Command appprobe is a test fixture for plugin MCP Apps: its tool show
// points (_meta.ui.resourceUri) at its App ui://probe/app.html, an HTML
// page (mime type text/html;profile=mcp-app) that claims it may connect
// anywhere (_meta.ui.csp.connectDomains ["https://*", "http://*"]): the
// gateway replaces that with the plugin's allowed_hosts. The page
// fetches the URLs its host posts it ({"probe": url, "id": n}) and
// answers {"id": n, "ok": bool, "error": "..."}, says {"probeReady":
// true} once it listens, and reports each
// Content-Security-Policy violation ({"violation": blockedURI}).
package main

import (
	"encoding/json"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

const uri = "ui://probe/app.html"

const mime = "text/html;profile=mcp-app"

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>probe</title></head>
<body><p id="state">probe ready</p>
<script>
document.addEventListener("securitypolicyviolation", (e) => {
  parent.postMessage({violation: e.blockedURI, directive: e.violatedDirective}, "*");
});
window.addEventListener("message", async (e) => {
  const m = e.data;
  if (!m || typeof m.probe !== "string") return;
  try {
    await fetch(m.probe, {mode: "no-cors", cache: "no-store"});
    parent.postMessage({id: m.id, ok: true}, "*");
  } catch (err) {
    parent.postMessage({id: m.id, ok: false, error: String(err)}, "*");
  }
});
parent.postMessage({probeReady: true}, "*");
</script></body></html>`

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "show",
		Description: "Shows the probe App",
		InputSchema: wasmgate.Schema(`{"type":"object"}`),
		Meta:        json.RawMessage(`{"ui":{"resourceUri":"` + uri + `"}}`),
	}})
}

//go:wasmexport show
func show() int32 { return wasmgate.Text("shown") }

//go:wasmexport resources_information
func resourcesInformation() int32 {
	return wasmgate.Information([]wasmgate.Resource{{
		URI:      uri,
		Name:     "app",
		MimeType: mime,
		Meta:     json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://*","http://*"]},"prefersBorder":false}}`),
	}})
}

//go:wasmexport app
func app() int32 {
	return wasmgate.Information(wasmgate.ResourceContent{URI: uri, MimeType: mime, Text: page})
}
