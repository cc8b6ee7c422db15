// client.mjs drives an MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json) so that wasmgate's
// end-to-end tests can check interoperability with a client we did not write.
//
// Usage (run `npm ci` in this folder first):
//
//   node client.mjs http <url> [--token T]
//       Connects with StreamableHTTPClientTransport to <url>, e.g.
//       http://127.0.0.1:8080/mcp. With --token, every request carries
//       "Authorization: Bearer T". The session is terminated with DELETE
//       before the client closes.
//
//   node client.mjs stdio <command> [args...]
//       Spawns <command> with [args...] (no shell) through
//       StdioClientTransport, e.g.
//         node client.mjs stdio /path/to/bin/wasmgate serve --stdio --config X
//       The child inherits this process's full environment and its stderr,
//       so server diagnostics appear on our stderr. Closing the client ends
//       the child's stdin and then signals it if it does not exit.
//
// Then, in both modes, it:
//   1. calls tools/list (following pagination cursors),
//   2. calls tool "calculate" with {operation:"add",a:5,b:3},
//   3. calls tool "calculate" with {operation:"divide",a:1,b:0},
//   4. prints exactly ONE JSON line to stdout:
//        {"tools":[<tool names, sorted>],
//         "add":{"content":[...],"isError":false},
//         "divzero":{"content":[...],"isError":true}}
//      where content is the tool result's content array as received and
//      isError is true only if the result's isError is true,
//   5. closes the client and exits 0.
//
// On any error (usage, connection, JSON-RPC error, including a JSON-RPC error
// from either tool call) it prints the error to stderr, prints nothing to
// stdout and exits 1. A tool result with isError:true is not an error here;
// it is reported in the JSON line. The whole run is bounded by a 30 s
// watchdog. Transport warnings that do not fail a request are written to
// stderr prefixed with "client.mjs: warning:".

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const USAGE = 'usage: node client.mjs http <url> [--token T]\n' +
  '       node client.mjs stdio <command> [args...]';
const WATCHDOG_MS = 30_000;

class UsageError extends Error {}

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode === 'http') {
    let url;
    let token;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i];
      if (arg === '--token') {
        if (i + 1 >= rest.length) throw new UsageError('--token needs a value');
        token = rest[++i];
      } else if (arg.startsWith('--token=')) {
        token = arg.slice('--token='.length);
      } else if (url === undefined && !arg.startsWith('--')) {
        url = arg;
      } else {
        throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
      }
    }
    if (url === undefined) throw new UsageError('missing <url>');
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`invalid URL ${JSON.stringify(url)}`);
    }
    return { mode, url: parsed, token };
  }
  if (mode === 'stdio') {
    const [command, ...args] = rest;
    if (!command) throw new UsageError('missing <command>');
    return { mode, command, args };
  }
  throw new UsageError(mode === undefined ? 'missing mode' : `unknown mode ${JSON.stringify(mode)}`);
}

function makeTransport(opts) {
  if (opts.mode === 'http') {
    const requestInit = opts.token
      ? { headers: { Authorization: `Bearer ${opts.token}` } }
      : undefined;
    return new StreamableHTTPClientTransport(opts.url, { requestInit });
  }
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([, v]) => typeof v === 'string'),
  );
  return new StdioClientTransport({
    command: opts.command,
    args: opts.args,
    env,
    stderr: 'inherit',
  });
}

async function listAllTools(client) {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    for (const tool of page.tools) names.push(tool.name);
    cursor = page.nextCursor;
  } while (cursor);
  return names.sort();
}

function summarize(result) {
  return { content: result.content, isError: result.isError === true };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const transport = makeTransport(opts);
  const client = new Client({ name: 'wasmgate-node-client', version: '0.1.0' });
  client.onerror = (err) => {
    process.stderr.write(`client.mjs: warning: ${err?.message ?? err}\n`);
  };

  await client.connect(transport);
  let line;
  let failed = true;
  try {
    const tools = await listAllTools(client);
    const add = await client.callTool({
      name: 'calculate',
      arguments: { operation: 'add', a: 5, b: 3 },
    });
    const divzero = await client.callTool({
      name: 'calculate',
      arguments: { operation: 'divide', a: 1, b: 0 },
    });
    line = JSON.stringify({ tools, add: summarize(add), divzero: summarize(divzero) });
    if (opts.mode === 'http') {
      await transport.terminateSession();
    }
    failed = false;
  } finally {
    // Silence warnings caused by our own shutdown (aborted streams).
    client.onerror = () => {};
    try {
      await client.close();
    } catch (err) {
      if (!failed) throw err; // otherwise keep the original error
    }
  }
  await new Promise((resolve, reject) => {
    process.stdout.write(line + '\n', (err) => (err ? reject(err) : resolve()));
  });
}

const watchdog = setTimeout(() => {
  process.stderr.write(`client.mjs: error: timed out after ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => process.exit(0),
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`client.mjs: error: ${err.message}\n${USAGE}\n`);
    } else {
      process.stderr.write(`client.mjs: error: ${err?.stack ?? err}\n`);
    }
    process.exit(1);
  },
);
