// A minimal MCP Apps host, for the browser tests of MCP Apps through the
// gateway (cmd/wasmgate/e2e_apps_test.go bundles it with esbuild and
// serves it next to a proxy of the gateway's /mcp). It is built on the
// host side of the official SDK (@modelcontextprotocol/ext-apps's
// app-bridge) and the official MCP client, as a host application is:
//
//   ?tool=NAME   lists tools, takes NAME's App (getToolUiResourceUri);
//   ?app=URI     or takes the App at URI directly;
//
// then reads the App (resources/read), builds the frame's
// Content-Security-Policy from the App's _meta.ui.csp (the contents'
// first, the resources/list entry's otherwise), renders the HTML in a
// sandboxed frame (no same origin), and connects an AppBridge to it.
// The App's own tool calls (callServerTool) are proxied as tools/call
// with _meta.ui.resourceUri naming the App, so the gateway resolves and
// audits them as the App's (docs/apps-and-skills.md).
//
// What happened is on window.host: {uri, csp, policy, ready, calls,
// errors, violations, probeReady}; window.probe(url) asks a probing App
// (testdata/plugins/appprobe) to fetch url.
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const host = (window.host = { ready: false, calls: [], errors: [], violations: [] });

// cspPolicy is the frame's policy from the App's csp metadata, with the
// extension's secure defaults: nothing reaches the network but what the
// App declared.
function cspPolicy(csp = {}) {
  const list = (xs) => (Array.isArray(xs) ? xs.filter((x) => typeof x === "string" && !/[\s;,'"]/.test(x)) : []);
  const res = list(csp.resourceDomains).join(" ");
  const connect = list(csp.connectDomains).join(" ") || "'none'";
  const frames = list(csp.frameDomains).join(" ") || "'none'";
  const base = list(csp.baseUriDomains).join(" ") || "'self'";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`,
    `style-src 'unsafe-inline' ${res}`,
    `img-src data: ${res}`,
    `font-src data: ${res}`,
    `media-src data: ${res}`,
    `connect-src ${connect}`,
    `frame-src ${frames}`,
    `base-uri ${base}`,
  ].join("; ");
}

function withPolicy(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`;
  if (/<head[^>]*>/i.test(html)) return html.replace(/<head[^>]*>/i, (m) => m + meta);
  return meta + html;
}

async function main() {
  const q = new URLSearchParams(location.search);
  const client = new Client({ name: "apps-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  let uri = q.get("app");
  if (!uri) {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === q.get("tool"));
    if (!tool) throw new Error(`tool ${q.get("tool")} is not listed`);
    uri = getToolUiResourceUri(tool);
  }
  host.uri = uri;
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  let csp = content._meta?.ui?.csp;
  if (!csp) {
    const { resources } = await client.listResources();
    csp = resources.find((r) => r.uri === uri)?._meta?.ui?.csp;
  }
  host.csp = csp ?? null;
  host.policy = cspPolicy(csp);

  const frame = document.createElement("iframe");
  frame.id = "app";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = "800px";
  frame.style.height = "600px";
  document.body.appendChild(frame);

  const bridge = new AppBridge(null, { name: "apps-host", version: "1.0.0" }, { serverTools: {}, logging: {}, openLinks: {} });
  bridge.oncalltool = async (params) => {
    host.calls.push(params.name);
    try {
      return await client.callTool({ ...params, _meta: { ...(params._meta ?? {}), ui: { resourceUri: uri } } });
    } catch (err) {
      host.errors.push(String(err?.message ?? err));
      throw err;
    }
  };
  bridge.onloggingmessage = () => {};
  bridge.oninitialized = () => {
    host.ready = true;
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));

  let next = 0;
  const waiting = new Map();
  window.addEventListener("message", (e) => {
    if (e.source !== frame.contentWindow || !e.data) return;
    if (typeof e.data.violation === "string") host.violations.push(e.data.violation);
    if (e.data.probeReady === true) host.probeReady = true;
    if (typeof e.data.id === "number" && waiting.has(e.data.id)) {
      waiting.get(e.data.id)(e.data);
      waiting.delete(e.data.id);
    }
  });
  window.probe = (url) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      frame.contentWindow.postMessage({ probe: url, id }, "*");
    });
  frame.srcdoc = withPolicy(content.text, host.policy);
  host.loaded = true;
}

main().catch((err) => {
  host.failed = String(err?.stack ?? err);
  console.error(err);
});
