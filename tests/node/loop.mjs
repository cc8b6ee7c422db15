// loop.mjs keeps several clients of the official TypeScript SDK calling a
// gateway until told to stop, so that a test can break something under
// them (kill a replica behind a balancer) and see what a client saw.
//
// Usage (run `npm ci` in this folder first):
//
//   node loop.mjs <url> [--clients N] [--interval MS]
//
// Each of N clients (default 3) connects with StreamableHTTPClientTransport
// to <url> (its own session, opened round robin behind a balancer) and
// calls, every MS milliseconds (default 250) until stdin closes:
// tools/list every 5th round, else calculate add(i, 1), whose answer must
// be i+1 without isError. It prints "ready" on stderr once every client is
// connected and has made one call, and "calls N" on stderr every second.
// A line "pause" on stdin holds the clients after their current call
// ("paused" on stderr once none is running; their GET streams stay open),
// "resume" lets them go on. When stdin closes each client finishes its
// call, ends its session (DELETE) and closes, and one JSON line goes to
// stdout:
//
//   {"calls": <calls that succeeded>, "failed": [<"client k: call i: error">],
//    "warnings": [<"client k: onerror message">]}
//
// failed holds every call that threw or returned a wrong or isError
// result; warnings what the SDK reported through onerror without failing a
// call (a GET stream that broke and was reopened, say). It exits 0 when
// failed is empty, else 1. A 5-minute watchdog bounds the run.

import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const WATCHDOG_MS = 5 * 60_000;

function parseArgs(argv) {
  const opts = { clients: 3, interval: 250 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--clients' || arg === '--interval') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a positive integer`);
      opts[arg.slice(2)] = n;
    } else if (opts.url === undefined && !arg.startsWith('--')) {
      opts.url = new URL(arg);
    } else {
      throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    }
  }
  if (opts.url === undefined) throw new Error('usage: node loop.mjs <url> [--clients N] [--interval MS]');
  return opts;
}

// describe is an error's message with its causes (fetch's "fetch failed"
// says nothing without them).
function describe(err) {
  let text = String(err?.message ?? err);
  for (let c = err?.cause; c; c = c.cause) text += `: ${c.code ?? ''} ${c.message ?? c}`;
  return text;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let stopping = false;
  let paused = null; // a promise the clients wait on while paused
  let resume = () => {};
  let running = 0; // calls in flight
  const reportPaused = () => {
    if (paused && running === 0) process.stderr.write('paused\n');
  };
  const lines = createInterface({ input: process.stdin });
  const stopped = new Promise((resolve) => lines.on('close', resolve)).then(() => {
    stopping = true;
    resume();
  });
  lines.on('line', (line) => {
    if (line === 'pause' && !paused) {
      paused = new Promise((resolve) => { resume = resolve; });
      reportPaused();
    } else if (line === 'resume' && paused) {
      paused = null;
      resume();
    }
  });

  const failed = [];
  const warnings = [];
  let calls = 0;
  const clients = [];
  for (let k = 1; k <= opts.clients; k++) {
    const transport = new StreamableHTTPClientTransport(opts.url);
    const client = new Client({ name: `wasmgate-loop-${k}`, version: '0.1.0' });
    client.onerror = (err) => warnings.push(`client ${k}: ${describe(err)}`);
    await client.connect(transport);
    clients.push({ k, client, transport });
  }

  async function callOnce(c, i) {
    if (i % 5 === 0) {
      const page = await c.client.listTools();
      if (!page.tools.some((t) => t.name === 'calculate')) throw new Error('tools/list without calculate');
      return;
    }
    const res = await c.client.callTool({ name: 'calculate', arguments: { operation: 'add', a: i, b: 1 } });
    const text = res.content?.[0]?.text;
    if (res.isError || text !== String(i + 1)) {
      throw new Error(`calculate add ${i} 1 = ${JSON.stringify(res)}`);
    }
  }

  let first = 0;
  const loops = clients.map(async (c) => {
    for (let i = 1; !stopping; i++) {
      if (paused) await paused;
      if (stopping) break;
      running++;
      try {
        await callOnce(c, i);
        calls++;
      } catch (err) {
        failed.push(`client ${c.k}: call ${i}: ${describe(err)}`);
      }
      running--;
      reportPaused();
      if (i === 1 && ++first === clients.length) process.stderr.write('ready\n');
      await Promise.race([sleep(opts.interval), stopped]);
    }
  });
  const ticker = setInterval(() => process.stderr.write(`calls ${calls}\n`), 1000);
  await Promise.all(loops);
  clearInterval(ticker);

  for (const c of clients) {
    try {
      await c.transport.terminateSession();
    } catch (err) {
      failed.push(`client ${c.k}: end session: ${err?.message ?? err}`);
    }
    c.client.onerror = () => {}; // our own shutdown aborts the streams
    await c.client.close();
  }
  await new Promise((resolve, reject) => {
    process.stdout.write(JSON.stringify({ calls, failed, warnings }) + '\n', (err) => (err ? reject(err) : resolve()));
  });
  return failed.length === 0 ? 0 : 1;
}

const watchdog = setTimeout(() => {
  process.stderr.write('loop.mjs: error: timed out\n');
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`loop.mjs: error: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
