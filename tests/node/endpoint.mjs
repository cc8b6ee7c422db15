// endpoint.mjs drives one endpoint of a gateway (the endpoints section,
// docs/endpoints.md) with the official TypeScript SDK client, so that the
// end-to-end tests can check what a client we did not write sees there.
//
// Usage (run `npm ci` in this folder first):
//
//   node endpoint.mjs http <url> [call...]
//       Connects with StreamableHTTPClientTransport to <url>, e.g.
//       http://127.0.0.1:8080/mcp/dev; terminates the session with
//       DELETE before closing.
//
//   node endpoint.mjs stdio <command> [args...] -- [call...]
//       Spawns <command> with [args...] through StdioClientTransport
//       (its stderr is ours).
//
// Each call is NAME=ARGS, ARGS a JSON object, e.g.
// 'calculate={"operation":"add","a":5,"b":3}'.
//
// It initializes, lists tools, resources, resource templates and prompts
// (following cursors; a kind whose capability the server does not
// advertise is null), makes the calls in order, and prints ONE JSON line:
//
//   {"server":{"name","version","title"},"instructions":"...",
//    "capabilities":{...},"tools":[sorted names],"resources":[sorted uris],
//    "templates":[sorted uri templates],"prompts":[sorted names],
//    "calls":[{"name","result":{"content","isError"}} |
//             {"name","error":{"code","message"}}]}
//
// A call that gets a JSON-RPC error is reported in the line (that is what
// the tests look at); any other failure prints to stderr and exits 1.
// Bounded by a 30 s watchdog.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const USAGE = 'usage: node endpoint.mjs http <url> [NAME=ARGS...]\n' +
  '       node endpoint.mjs stdio <command> [args...] -- [NAME=ARGS...]';
const WATCHDOG_MS = 30_000;

class UsageError extends Error {}

function parseCall(arg) {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`call ${JSON.stringify(arg)}: want NAME=ARGS`);
  let args;
  try {
    args = JSON.parse(arg.slice(eq + 1));
  } catch (err) {
    throw new UsageError(`call ${JSON.stringify(arg)}: ARGS: ${err.message}`);
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new UsageError(`call ${JSON.stringify(arg)}: ARGS is not a JSON object`);
  }
  return { name: arg.slice(0, eq), args };
}

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode === 'http') {
    const [url, ...calls] = rest;
    if (!url) throw new UsageError('missing <url>');
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`invalid URL ${JSON.stringify(url)}`);
    }
    return { mode, url: parsed, calls: calls.map(parseCall) };
  }
  if (mode === 'stdio') {
    const sep = rest.indexOf('--');
    const cmd = sep < 0 ? rest : rest.slice(0, sep);
    const calls = sep < 0 ? [] : rest.slice(sep + 1);
    const [command, ...args] = cmd;
    if (!command) throw new UsageError('missing <command>');
    return { mode, command, args, calls: calls.map(parseCall) };
  }
  throw new UsageError(mode === undefined ? 'missing mode' : `unknown mode ${JSON.stringify(mode)}`);
}

function makeTransport(opts) {
  if (opts.mode === 'http') return new StreamableHTTPClientTransport(opts.url);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([, v]) => typeof v === 'string'),
  );
  return new StdioClientTransport({ command: opts.command, args: opts.args, env, stderr: 'inherit' });
}

// listAll follows cursors of one list method; null when the server does
// not advertise the capability.
async function listAll(advertised, list, key, field) {
  if (!advertised) return null;
  const out = [];
  let cursor;
  do {
    const page = await list(cursor === undefined ? undefined : { cursor });
    for (const x of page[key]) out.push(x[field]);
    cursor = page.nextCursor;
  } while (cursor);
  return out.sort();
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const transport = makeTransport(opts);
  const client = new Client({ name: 'wasmgate-endpoint-client', version: '0.1.0' });
  client.onerror = (err) => {
    process.stderr.write(`endpoint.mjs: warning: ${err?.message ?? err}\n`);
  };
  await client.connect(transport);
  let line;
  let failed = true;
  try {
    const caps = client.getServerCapabilities() ?? {};
    const info = client.getServerVersion() ?? {};
    const out = {
      server: { name: info.name, version: info.version, title: info.title ?? '' },
      instructions: client.getInstructions() ?? '',
      capabilities: caps,
      tools: await listAll(caps.tools, (p) => client.listTools(p), 'tools', 'name'),
      resources: await listAll(caps.resources, (p) => client.listResources(p), 'resources', 'uri'),
      templates: await listAll(caps.resources, (p) => client.listResourceTemplates(p), 'resourceTemplates', 'uriTemplate'),
      prompts: await listAll(caps.prompts, (p) => client.listPrompts(p), 'prompts', 'name'),
      calls: [],
    };
    for (const c of opts.calls) {
      try {
        const r = await client.callTool({ name: c.name, arguments: c.args });
        out.calls.push({ name: c.name, result: { content: r.content, isError: r.isError === true } });
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        out.calls.push({ name: c.name, error: { code: err.code, message: err.message } });
      }
    }
    line = JSON.stringify(out);
    if (opts.mode === 'http') await transport.terminateSession();
    failed = false;
  } finally {
    client.onerror = () => {};
    try {
      await client.close();
    } catch (err) {
      if (!failed) throw err;
    }
  }
  await new Promise((resolve, reject) => {
    process.stdout.write(line + '\n', (err) => (err ? reject(err) : resolve()));
  });
}

const watchdog = setTimeout(() => {
  process.stderr.write(`endpoint.mjs: error: timed out after ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => process.exit(0),
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`endpoint.mjs: error: ${err.message}\n${USAGE}\n`);
    } else {
      process.stderr.write(`endpoint.mjs: error: ${err?.stack ?? err}\n`);
    }
    process.exit(1);
  },
);
