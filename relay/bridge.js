// bridge.js — the wasmgate relay client for web pages.
//
// A dependency-free ES module, served by the gateway at <relay.path>/bridge.js.
// A page connects to one site of the gateway's relay, proves it knows the
// site's token (HMAC-SHA256 with WebCrypto; the token never leaves the page),
// and registers the tools, resources and prompts it provides; MCP clients of
// the gateway then call them. The wire protocol is docs/relay-protocol.md.
//
//   import { connect } from 'http://127.0.0.1:8080/relay/bridge.js';
//   const bridge = connect('ws://127.0.0.1:8080/relay/demo', { token });
//   bridge.registerTool({ name: 'echo', inputSchema: { type: 'object' } },
//                       async (args, { signal }) => JSON.stringify(args));
//   bridge.addEventListener('status', (e) => console.log(e.detail.status));
//
// WebCrypto needs a secure context: serve the page over https:// or from
// http://localhost / http://127.0.0.1.

export const PROTOCOL = 'wasmgate-relay/1';

// Close codes (docs/relay-protocol.md).
export const CLOSE = Object.freeze({
  AUTH_FAILED: 4001,
  AUTH_TIMEOUT: 4002,
  GATEWAY_PROOF: 4003,
  SITE_REMOVED: 4004,
  SETTINGS_CHANGED: 4005,
  BUSY: 4008,
  PROTOCOL: 4400,
});

// Closes after which reconnecting cannot help: the token is wrong, or the
// server is not the gateway that knows it.
const FATAL = new Set([CLOSE.AUTH_FAILED, CLOSE.GATEWAY_PROOF]);

const enc = new TextEncoder();

function b64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64url(s) {
  s = String(s).replace(/-/g, '+').replace(/_/g, '/');
  while (s.length % 4) s += '=';
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function message(err) {
  if (err && typeof err.message === 'string' && err.message) return err.message;
  return String(err);
}

// toolResult turns what a tool handler returned into an MCP CallToolResult.
function toolResult(v) {
  if (typeof v === 'string') return { content: [{ type: 'text', text: v }] };
  if (v && typeof v === 'object' && Array.isArray(v.content)) return v;
  if (v === undefined || v === null) return { content: [] };
  return { content: [{ type: 'text', text: JSON.stringify(v) }] };
}

// resourceResult turns what a resource handler returned into an MCP
// ReadResourceResult for uri.
function resourceResult(uri, v, mimeType) {
  if (v && typeof v === 'object' && Array.isArray(v.contents)) return v;
  if (v && typeof v === 'object' && ('text' in v || 'blob' in v)) return { contents: [{ uri, mimeType, ...v }] };
  return { contents: [{ uri, mimeType, text: typeof v === 'string' ? v : JSON.stringify(v) }] };
}

// promptResult turns what a prompt handler returned into an MCP
// GetPromptResult.
function promptResult(v) {
  if (typeof v === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
  if (Array.isArray(v)) return { messages: v };
  return v;
}

// Bridge is one page's connection to one relay site. It reconnects with
// backoff until disconnect() (or a fatal close: wrong token).
export class Bridge extends EventTarget {
  constructor(url, { site, token, reconnect = true, minDelay = 250, maxDelay = 30000 } = {}) {
    super();
    const u = new URL(url);
    const segs = u.pathname.split('/').filter(Boolean);
    if (site && segs[segs.length - 1] !== site) {
      u.pathname = u.pathname.replace(/\/?$/, '/') + encodeURIComponent(site);
    } else if (!site) {
      site = decodeURIComponent(segs[segs.length - 1] || '');
    }
    if (!site) throw new Error('bridge.js: no site: pass {site} or a URL ending with /<site>');
    if (token === undefined || token === null || token === '') throw new Error('bridge.js: a token is required');
    this.url = u.toString();
    this.site = site;
    this._token = token; // a string, or a function returning one (or a promise of one)
    this._reconnect = reconnect;
    this._minDelay = minDelay;
    this._maxDelay = maxDelay;
    this._attempt = 0;
    this._timer = null;
    this._ws = null;
    this._wanted = false;
    this._authed = false;
    this._queue = Promise.resolve();
    this._regSeq = 0;
    this._regScheduled = false;
    this._inflight = new Map(); // call id -> AbortController
    this.tools = new Map();
    this.resources = new Map();
    this.templates = new Map();
    this.prompts = new Map();
    this.status = 'idle';
  }

  // connected is true once the gateway has proven it knows the token.
  get connected() { return this._authed; }
  isConnected() { return this._authed; }

  // registerTool publishes a tool: def is {name, title?, description?,
  // inputSchema?}; handler(args, {signal, id}) returns a string, an MCP
  // CallToolResult ({content, isError?}), or any JSON value (sent as text);
  // a throw becomes an isError result with its message. The returned
  // function unregisters the tool. Registering a name again replaces it.
  registerTool(def, handler) { return this._add(this.tools, 'name', def, handler); }

  // registerResource publishes a static resource {uri, name, description?,
  // mimeType?}; handler(uri, {signal, id}) returns a string, {text} or
  // {blob} (base64), or a ReadResourceResult ({contents}).
  registerResource(def, handler) { return this._add(this.resources, 'uri', def, handler); }

  // registerResourceTemplate publishes a resource template {uriTemplate,
  // name, description?, mimeType?}, e.g. demo://storage/{key} (a page
  // registers resources only under a URI scheme its site owns: the one its
  // prefix gives, or relay.sites[].resource_schemes); handler(uri,
  // variables, {signal, id}) answers as a resource handler does.
  registerResourceTemplate(def, handler) { return this._add(this.templates, 'uriTemplate', def, handler); }

  // registerPrompt publishes a prompt {name, description?, arguments?:
  // [{name, description?, required?}]}; handler(args, {signal, id})
  // returns a string, an array of messages, or {description?, messages}.
  registerPrompt(def, handler) { return this._add(this.prompts, 'name', def, handler); }

  _add(map, key, def, handler) {
    if (!def || typeof def[key] !== 'string' || !def[key]) throw new TypeError(`bridge.js: the definition needs a ${key}`);
    if (typeof handler !== 'function') throw new TypeError('bridge.js: the handler must be a function');
    map.set(def[key], { def: { ...def }, handler });
    this._scheduleRegister();
    return () => {
      if (map.get(def[key])?.handler === handler) {
        map.delete(def[key]);
        this._scheduleRegister();
      }
    };
  }

  // connect opens the connection (connect() at module level calls it).
  connect() {
    this._wanted = true;
    if (!this._ws && !this._timer) this._open();
    return this;
  }

  // disconnect closes the connection and stops reconnecting. Calls in
  // progress are aborted (their handlers see signal.aborted).
  disconnect() {
    this._wanted = false;
    clearTimeout(this._timer);
    this._timer = null;
    const ws = this._ws;
    this._ws = null;
    this._authed = false;
    this._abortAll('disconnected');
    if (ws) ws.close(1000, 'page disconnected');
    this._setStatus('closed');
  }

  _setStatus(status, extra = {}) {
    this.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: { status, ...extra } }));
  }

  _open() {
    this._timer = null;
    this._authed = false;
    this._setStatus('connecting', { attempt: this._attempt });
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this._setStatus('disconnected', { error: message(err) });
      this._retry();
      return;
    }
    this._ws = ws;
    this._queue = Promise.resolve();
    ws.onmessage = (ev) => {
      if (this._ws !== ws) return;
      // Frames are handled in order; a handler that awaits (WebCrypto)
      // holds the next frame back, calls do not.
      this._queue = this._queue.then(() => this._frame(ws, ev.data)).catch((err) => {
        this._fail(ws, CLOSE.PROTOCOL, message(err));
      });
    };
    ws.onclose = (ev) => {
      if (this._ws !== ws) return;
      this._ws = null;
      this._authed = false;
      this._abortAll('connection closed');
      const detail = { code: ev.code, reason: ev.reason };
      if (FATAL.has(ev.code)) {
        this._wanted = false;
        this._setStatus('failed', detail);
        return;
      }
      this._setStatus('disconnected', detail);
      this._retry();
    };
  }

  _retry() {
    if (!this._wanted || !this._reconnect) return;
    const base = Math.min(this._maxDelay, this._minDelay * 2 ** this._attempt);
    this._attempt = Math.min(this._attempt + 1, 16);
    const delay = base / 2 + Math.random() * (base / 2);
    this._timer = setTimeout(() => this._open(), delay);
  }

  _fail(ws, code, reason) {
    try { ws.close(code, String(reason).slice(0, 120)); } catch { /* already closing */ }
  }

  _send(ws, frame) {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }

  async _secret() {
    const t = typeof this._token === 'function' ? await this._token() : this._token;
    if (typeof t !== 'string' || !t) throw new Error('bridge.js: the token function returned no token');
    return t;
  }

  async _frame(ws, data) {
    if (typeof data !== 'string') throw new Error('binary frame');
    const f = JSON.parse(data);
    switch (f.type) {
      case 'hello': return this._hello(ws, f);
      case 'welcome': return this._welcome(ws, f);
      case 'registered':
        this.dispatchEvent(new CustomEvent('registered', { detail: f }));
        return;
      case 'error':
        // A frame refused without closing (a registration over the rate
        // limit); what was registered before still serves.
        this.dispatchEvent(new CustomEvent('refused', { detail: f }));
        return;
      case 'call': return this._call(ws, f);
      case 'cancel':
        this._inflight.get(f.id)?.abort(new DOMException(`cancelled by the gateway (${f.reason})`, 'AbortError'));
        this._inflight.delete(f.id);
        return;
      default:
        throw new Error(`unknown frame type ${f.type}`);
    }
  }

  async _hello(ws, f) {
    if (f.protocol !== PROTOCOL) throw new Error(`gateway speaks ${f.protocol}, not ${PROTOCOL}`);
    if (f.site !== this.site) throw new Error(`gateway greets site ${f.site}, not ${this.site}`);
    this._setStatus('authenticating');
    this._gatewayNonce = f.nonce;
    this._pageNonce = b64url(crypto.getRandomValues(new Uint8Array(32)));
    this._key = await crypto.subtle.importKey('raw', enc.encode(await this._secret()),
      { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    const sig = await crypto.subtle.sign('HMAC', this._key, enc.encode(this._input('page')));
    this._send(ws, { type: 'auth', nonce: this._pageNonce, proof: b64url(new Uint8Array(sig)) });
  }

  async _welcome(ws, f) {
    if (!this._key) throw new Error('welcome before hello');
    const ok = await crypto.subtle.verify('HMAC', this._key, unb64url(f.proof), enc.encode(this._input('gateway')));
    this._key = null;
    if (!ok) {
      this._fail(ws, CLOSE.GATEWAY_PROOF, 'gateway proof invalid');
      return;
    }
    this._authed = true;
    this._attempt = 0;
    this.limits = { maxFrame: f.max_frame, callTimeoutMs: f.call_timeout_ms };
    this._setStatus('connected');
    this._sendRegister();
  }

  _input(who) {
    return `${PROTOCOL} ${who}\n${this.site}\n${this._gatewayNonce}\n${this._pageNonce}`;
  }

  _scheduleRegister() {
    if (this._regScheduled) return;
    this._regScheduled = true;
    queueMicrotask(() => {
      this._regScheduled = false;
      this._sendRegister();
    });
  }

  _sendRegister() {
    const ws = this._ws;
    if (!ws || !this._authed) return;
    this._send(ws, {
      type: 'register',
      id: ++this._regSeq,
      tools: [...this.tools.values()].map((t) => t.def),
      resources: [...this.resources.values()].map((r) => r.def),
      resourceTemplates: [...this.templates.values()].map((r) => r.def),
      prompts: [...this.prompts.values()].map((p) => p.def),
    });
  }

  _call(ws, f) {
    const ac = new AbortController();
    this._inflight.set(f.id, ac);
    const ctx = { signal: ac.signal, id: f.id };
    let p;
    try {
      p = this._dispatch(f, ctx);
    } catch (err) {
      p = Promise.reject(err);
    }
    Promise.resolve(p).then(
      (result) => {
        if (!ac.signal.aborted) this._send(ws, { type: 'result', id: f.id, result });
      },
      (err) => {
        if (!ac.signal.aborted) this._send(ws, { type: 'result', id: f.id, error: { message: message(err) } });
      },
    ).finally(() => this._inflight.delete(f.id));
  }

  _dispatch(f, ctx) {
    switch (f.method) {
      case 'tools/call': {
        const t = this.tools.get(f.name);
        if (!t) throw new Error(`unknown tool ${f.name}`);
        const v = t.handler(f.arguments ?? {}, ctx);
        return v instanceof Promise ? v.then(toolResult) : toolResult(v);
      }
      case 'resources/read': {
        if (f.template !== undefined) {
          const r = this.templates.get(f.template);
          if (!r) throw new Error(`unknown resource template ${f.template}`);
          return Promise.resolve(r.handler(f.uri, f.variables ?? {}, ctx)).then((v) => resourceResult(f.uri, v, r.def.mimeType));
        }
        const r = this.resources.get(f.uri);
        if (!r) throw new Error(`unknown resource ${f.uri}`);
        return Promise.resolve(r.handler(f.uri, ctx)).then((v) => resourceResult(f.uri, v, r.def.mimeType));
      }
      case 'prompts/get': {
        const p = this.prompts.get(f.name);
        if (!p) throw new Error(`unknown prompt ${f.name}`);
        return Promise.resolve(p.handler(f.arguments ?? {}, ctx)).then(promptResult);
      }
      default:
        throw new Error(`unknown method ${f.method}`);
    }
  }

  _abortAll(why) {
    for (const ac of this._inflight.values()) ac.abort(new DOMException(why, 'AbortError'));
    this._inflight.clear();
  }
}

// connect opens a bridge to url (ws(s)://host:port<relay.path>/<site>, or
// the relay's base URL with {site}) with the site's token: a string, or a
// function returning it (so that it can be fetched when needed rather than
// kept in a bundle). It returns the Bridge at once; listen to its 'status'
// events ('connecting', 'authenticating', 'connected', 'disconnected',
// 'failed', 'closed'), 'registered' and 'refused' events.
export function connect(url, options) {
  return new Bridge(url, options).connect();
}
