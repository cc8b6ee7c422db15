// search.mjs drives an endpoint in discovery mode search (docs/endpoints.md,
// "Large catalogs") with the official TypeScript SDK client, so that the
// end-to-end tests can check what a client we did not write does with it.
//
// Usage (run `npm ci` in this folder first):
//
//   node search.mjs <url> <query> <args>
//
// Connects with StreamableHTTPClientTransport to <url> (a 2025-11-25
// session), lists tools, calls find_tools({query}), waits (up to 5 s) for
// notifications/tools/list_changed, lists tools again, then calls the
// first tool found twice with <args> (a JSON object): by its own name, and
// through call_tool. Prints ONE JSON line:
//
//   {"listed":[names],"found":[names],"listChanged":true|false,
//    "relisted":[names],"byName":{"content","isError"},
//    "viaCallTool":{"content","isError"}}
//
// Any failure prints to stderr and exits 1. Bounded by a 30 s watchdog.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const watchdog = setTimeout(() => {
  process.stderr.write('search.mjs: watchdog: 30 s passed\n');
  process.exit(1);
}, 30_000);

async function main() {
  const [url, query, rawArgs] = process.argv.slice(2);
  if (!url || !query || !rawArgs) {
    throw new Error('usage: node search.mjs <url> <query> <args>');
  }
  const args = JSON.parse(rawArgs);
  const client = new Client({ name: 'wasmgate-search-test', version: '1.0.0' });
  let changed = false;
  let onChange = () => {};
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed = true;
    onChange();
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();

  const listed = await names();
  const res = await client.callTool({ name: 'find_tools', arguments: { query } });
  if (res.isError) throw new Error(`find_tools: ${JSON.stringify(res.content)}`);
  const found = JSON.parse(res.content[0].text).tools.map((t) => t.name);
  if (found.length === 0) throw new Error(`find_tools(${query}) found nothing`);
  if (!changed) {
    await new Promise((resolve) => {
      onChange = resolve;
      setTimeout(resolve, 5000);
    });
  }
  const relisted = await names();
  const pick = (r) => ({ content: r.content, isError: r.isError ?? false });
  const byName = pick(await client.callTool({ name: found[0], arguments: args }));
  const viaCallTool = pick(await client.callTool({ name: 'call_tool', arguments: { name: found[0], arguments: args } }));
  await transport.terminateSession();
  await client.close();
  process.stdout.write(JSON.stringify({ listed, found, listChanged: changed, relisted, byName, viaCallTool }) + '\n');
}

main().then(
  () => {
    clearTimeout(watchdog);
  },
  (err) => {
    process.stderr.write(`search.mjs: ${err.stack || err}\n`);
    process.exit(1);
  },
);
