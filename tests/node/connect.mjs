// connect.mjs calls one tool through a gateway with the official TypeScript
// SDK client (@modelcontextprotocol/sdk), for the per-user OAuth tests: a
// call to an upstream the user has not connected yet answers with a URL
// elicitation (-32042) or a tool error carrying the connect link; once the
// user has connected it, the same call works.
//
// Usage (run `npm ci` in this folder first):
//
//   node connect.mjs <url> --token T --tool NAME [--elicit-url]
//
// Connects with StreamableHTTPClientTransport to <url> (the 2025-11-25
// handshake, a session), every request carrying "Authorization: Bearer T".
// With --elicit-url the client declares URL-mode elicitation
// (capabilities.elicitation.url). It calls tool NAME without arguments and
// prints exactly ONE JSON line to stdout:
//
//   {"result":{"content":[...],"isError":false}}          the tool's result
//   {"error":{"code":-32042,"message":"...","elicitations":[{"mode":"url","url":"...",...}]}}
//                                                         a JSON-RPC error
//
// then terminates the session and exits 0. Anything else (usage, a
// connection that fails) is printed to stderr with exit status 1. The run is
// bounded by a 30 s watchdog.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';

const USAGE = 'usage: node connect.mjs <url> --token T --tool NAME [--elicit-url]';
const WATCHDOG_MS = 30_000;

function parseArgs(argv) {
  const out = { elicitURL: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value\n${USAGE}`);
      return argv[++i];
    };
    if (arg === '--token') out.token = value();
    else if (arg === '--tool') out.tool = value();
    else if (arg === '--elicit-url') out.elicitURL = true;
    else if (out.url === undefined && !arg.startsWith('--')) out.url = new URL(arg);
    else throw new Error(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  if (!out.url || !out.token || !out.tool) throw new Error(USAGE);
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const capabilities = args.elicitURL ? { elicitation: { url: {} } } : {};
  const client = new Client({ name: 'wasmgate-connect-test', version: '1.0.0' }, { capabilities });
  if (args.elicitURL) {
    // The gateway asks in the call's error, not with a request; a request
    // would be a surprise, and is declined.
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  }
  const transport = new StreamableHTTPClientTransport(args.url, {
    requestInit: { headers: { Authorization: `Bearer ${args.token}` } },
  });
  await client.connect(transport);
  let line;
  try {
    const result = await client.callTool({ name: args.tool, arguments: {} });
    line = { result: { content: result.content, isError: result.isError === true } };
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    const error = { code: err.code, message: err.message };
    if (err instanceof UrlElicitationRequiredError) error.elicitations = err.elicitations;
    line = { error };
  }
  try {
    await transport.terminateSession();
  } finally {
    await client.close();
  }
  process.stdout.write(JSON.stringify(line) + '\n');
}

const watchdog = setTimeout(() => {
  process.stderr.write(`connect.mjs: no answer within ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`connect.mjs: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
