// A browser MCP server (the tools calculate and set-storage, the resource
// template storage://{key}) served to wasmgate through its relay. Its answers are those of the
// calculator and storage example plugins (examples/plugins), word for word.
//
// The page reads where to connect from its URL fragment, which browsers never
// send to a server:
//   index.html#url=ws://127.0.0.1:8080/relay/demo&token=…[&site=demo]
// and removes it from the address bar at once. A real application would get
// the token from its own backend instead (README.md).

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.hash.slice(1));
history.replaceState(null, '', location.pathname + location.search);

const relayURL = params.get('url');
const token = params.get('token');
let site = params.get('site') || undefined;

// The page's own store: values live as long as the tab (nothing persists
// between sessions).
const store = new Map();

const operations = 'add, subtract, multiply or divide';

// calculate mirrors examples/plugins/calculator: the result as JavaScript's
// String(n) writes it, "Division by zero" when dividing by 0.
function calculate(args) {
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    throw new Error('Invalid arguments: expected a JSON object with operation, a and b');
  }
  const { operation, a, b } = args;
  if (!('operation' in args)) throw new Error(`Missing operation: expected ${operations}`);
  if (typeof operation !== 'string') throw new Error(`Invalid operation: expected a string, one of ${operations}`);
  for (const [name, v] of [['a', a], ['b', b]]) {
    if (!(name in args)) throw new Error(`Missing operand "${name}": expected a number`);
    if (typeof v !== 'number') throw new Error(`Invalid operand "${name}": expected a number`);
  }
  switch (operation) {
    case 'add': return String(a + b);
    case 'subtract': return String(a - b);
    case 'multiply': return String(a * b);
    case 'divide':
      if (b === 0) throw new Error('Division by zero');
      return String(a / b);
    default:
      throw new Error(`Unknown operation ${JSON.stringify(operation)}: expected ${operations}`);
  }
}

function stringArg(args, name) {
  if (!(name in args)) throw new Error(`Missing argument "${name}": expected a string`);
  if (typeof args[name] !== 'string') throw new Error(`Invalid argument "${name}": expected a string`);
  return args[name];
}

// setStorage mirrors examples/plugins/storage's set-storage.
function setStorage(args) {
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    throw new Error('Invalid arguments: expected a JSON object with key and value');
  }
  const key = stringArg(args, 'key');
  const value = stringArg(args, 'value');
  store.set(key, value);
  render();
  return `Stored value at key: ${key}`;
}

function render() {
  const rows = [...store].map(([k, v]) => {
    const tr = document.createElement('tr');
    for (const text of [k, v]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  $('store').replaceChildren(...rows);
}

// The log is written in batches: a page serving thousands of calls a
// second should not touch the DOM for each.
let calls = 0;
let pending = [];
function log(line) {
  calls++;
  pending.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  if (pending.length === 1) setTimeout(flush, 100);
}
function flush() {
  document.documentElement.dataset.calls = String(calls);
  const el = $('log');
  el.textContent = (el.textContent + pending.slice(-200).join('\n') + '\n').split('\n').slice(-201).join('\n');
  pending = [];
}

// logged wraps a handler so that the page shows its calls.
function logged(name, fn) {
  return (...args) => {
    try {
      const out = fn(...args);
      log(`${name} ${JSON.stringify(args[0])} → ${JSON.stringify(out)}`);
      return out;
    } catch (err) {
      log(`${name} ${JSON.stringify(args[0])} ✗ ${err.message}`);
      throw err;
    }
  };
}

function setStatus(status, detail = '') {
  const el = $('status');
  el.dataset.status = status;
  el.textContent = detail ? `${status} (${detail})` : status;
  document.documentElement.dataset.relay = status;
}

async function main() {
  if (!relayURL || !token) {
    $('help').hidden = false;
    setStatus('idle', 'no #url=…&token=… in the address');
    return;
  }
  // bridge.js is served by the gateway beside the site's endpoint:
  // ws://host:port/relay/demo -> http://host:port/relay/bridge.js
  const u = new URL(relayURL);
  const segs = u.pathname.split('/').filter(Boolean);
  if (!site) site = segs[segs.length - 1];
  const base = segs[segs.length - 1] === site ? segs.slice(0, -1) : segs;
  const bridgeJS = `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}/${base.join('/')}/bridge.js`;
  $('url').textContent = relayURL;
  const { connect } = await import(bridgeJS);

  const bridge = connect(relayURL, { site, token });
  window.relayBridge = bridge; // for the tests and the console
  bridge.addEventListener('status', (e) => {
    const { status, code, reason } = e.detail;
    setStatus(status, code ? `${code}${reason ? ' ' + reason : ''}` : '');
  });
  bridge.addEventListener('registered', (e) => {
    document.documentElement.dataset.registered = e.detail.tools.join(',');
    for (const w of e.detail.warnings ?? []) log(`warning: ${w}`);
  });

  bridge.registerTool({
    name: 'calculate',
    description: 'Performs basic arithmetic on two numbers: add, subtract, multiply or divide a by b.',
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', enum: ['add', 'subtract', 'multiply', 'divide'] },
        a: { type: 'number' },
        b: { type: 'number' },
      },
      required: ['operation', 'a', 'b'],
    },
  }, logged('calculate', calculate));

  bridge.registerTool({
    name: 'set-storage',
    description: 'Stores a string value under a key; read it back as the resource storage://{key}.',
    inputSchema: {
      type: 'object',
      properties: {
        key: { type: 'string', description: 'String identifier for the stored value' },
        value: { type: 'string', description: 'String value to store' },
      },
      required: ['key', 'value'],
    },
  }, logged('set-storage', setStorage));

  bridge.registerResourceTemplate({
    uriTemplate: 'storage://{key}',
    name: 'storage',
    description: 'The value stored at key by the set-storage tool, or "Key not found".',
    mimeType: 'text/plain',
  }, logged('storage://', (uri, { key }) => ({ text: store.has(key) ? store.get(key) : 'Key not found' })));
}

main().catch((err) => {
  setStatus('failed', err.message);
  console.error(err);
});
