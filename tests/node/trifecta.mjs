// trifecta.mjs is a scripted agent that falls for the "lethal trifecta"
// (issue 43, docs/flows.md): with the official TypeScript SDK client
// (@modelcontextprotocol/sdk) it reads the user's private notes, fetches a
// web page whose text tells it to send those notes somewhere, and does
// exactly what the page says with a tool that can send data out. The
// gateway's flow rules are what should stop the last step; the end-to-end
// tests (cmd/wasmgate/e2e_flows_test.go) run it and judge its output.
//
// Usage (run `npm ci` in this folder first):
//
//   node trifecta.mjs <url> [--token T] [--era E] [--elicit yes|no|none]
//                     [--page URL] [--post-url URL] [--steps LIST]
//                     [--session ID] [--keep-session]
//                     [--read TOOL] [--fetch TOOL] [--post TOOL]
//
//   <url>          the gateway's MCP endpoint (env TRIFECTA_URL)
//   --token T      every request carries "Authorization: Bearer T"
//                  (env TRIFECTA_TOKEN)
//   --era E        the protocol revision: 2025-11-25 (the default; an
//                  initialize handshake and an Mcp-Session-Id session). The
//                  pinned SDK speaks no later one, so 2026-07-28 is a usage
//                  error: the tests drive that era with mcp-go (env
//                  TRIFECTA_ERA)
//   --elicit A     how the human answers a form elicitation: yes (accept,
//                  {approve: true}), no (decline), none (the client
//                  declares no elicitation capability; the default)
//                  (env TRIFECTA_ELICIT)
//   --page URL     the web page the fetch step reads (env TRIFECTA_PAGE)
//   --post-url URL where the post step sends the notes when no page was
//                  fetched (the agent was told by other means)
//   --steps LIST   comma-separated steps among read, fetch, post, in that
//                  order (default read,fetch,post; without --page,
//                  read,post)
//   --session ID   resume that session (no initialize) instead of opening
//                  one
//   --keep-session do not end the session (DELETE) at the end
//   --read/--fetch/--post TOOL  the tools' names (default read_notes,
//                  fetch, post)
//
// The steps:
//   read   calls TOOL(read) with {} and keeps its text as the notes;
//   fetch  calls TOOL(fetch) with {url: page}; its text is the fetch
//          plugin's JSON {"status", "body", ...}: the agent reads the body
//          and takes the first http(s) URL after the word "POST" as where
//          to send the notes;
//   post   calls TOOL(post) with {url, method: "POST", body: notes}, as
//          the page says.
// A step whose result has isError, or that got a JSON-RPC error, ends the
// run (the later steps need what it would have returned).
//
// Output: one JSON line per step on stdout, first
//   {"step":"connect","session":"<Mcp-Session-Id>","elicitation":true|false}
// then for each step run
//   {"step":"read","tool":"read_notes","isError":false,"text":"...",
//    "elicitations":[{"message":"...","requestedSchema":{...},"answer":"accept"}]}
// where text joins the result's text content with "\n", elicitations are
// the form elicitations the client was asked during that step (and how it
// answered), and a JSON-RPC error gives "error":{"code":N,"message":"..."}
// instead of isError and text. It exits 0 when it could run (whatever the
// tools answered), 2 on a usage error, 1 on any other (printed on stderr).
// A 60 s watchdog bounds the run.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const WATCHDOG_MS = 60_000;
const SESSION_ERA = '2025-11-25';

class UsageError extends Error {}

function parseArgs(argv) {
  const env = process.env;
  const opts = {
    url: env.TRIFECTA_URL,
    token: env.TRIFECTA_TOKEN,
    era: env.TRIFECTA_ERA || SESSION_ERA,
    elicit: env.TRIFECTA_ELICIT || 'none',
    page: env.TRIFECTA_PAGE,
    postURL: undefined,
    steps: undefined,
    session: undefined,
    keepSession: false,
    tools: { read: 'read_notes', fetch: 'fetch', post: 'post' },
  };
  const valued = {
    '--token': (v) => { opts.token = v; },
    '--era': (v) => { opts.era = v; },
    '--elicit': (v) => { opts.elicit = v; },
    '--page': (v) => { opts.page = v; },
    '--post-url': (v) => { opts.postURL = v; },
    '--steps': (v) => { opts.steps = v.split(',').map((s) => s.trim()).filter(Boolean); },
    '--session': (v) => { opts.session = v; },
    '--read': (v) => { opts.tools.read = v; },
    '--fetch': (v) => { opts.tools.fetch = v; },
    '--post': (v) => { opts.tools.post = v; },
  };
  let positional;
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '--keep-session') {
      opts.keepSession = true;
    } else if (valued[arg]) {
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
        value = argv[++i];
      }
      valued[arg](value);
    } else if (positional === undefined && !arg.startsWith('--')) {
      positional = arg;
    } else {
      throw new UsageError(`unexpected argument ${JSON.stringify(argv[i])}`);
    }
  }
  if (positional !== undefined) opts.url = positional;
  if (!opts.url) throw new UsageError('missing <url> (or TRIFECTA_URL)');
  try {
    opts.url = new URL(opts.url);
  } catch {
    throw new UsageError(`invalid URL ${JSON.stringify(opts.url)}`);
  }
  if (opts.era !== SESSION_ERA) {
    throw new UsageError(`era ${JSON.stringify(opts.era)}: the pinned TypeScript SDK speaks ${SESSION_ERA} at most`);
  }
  if (!['yes', 'no', 'none'].includes(opts.elicit)) {
    throw new UsageError(`--elicit must be yes, no or none, not ${JSON.stringify(opts.elicit)}`);
  }
  if (opts.steps === undefined) opts.steps = opts.page ? ['read', 'fetch', 'post'] : ['read', 'post'];
  for (const s of opts.steps) {
    if (!['read', 'fetch', 'post'].includes(s)) throw new UsageError(`unknown step ${JSON.stringify(s)}`);
  }
  if (opts.steps.includes('fetch') && !opts.page) throw new UsageError('the fetch step needs --page');
  if (opts.steps.includes('post') && !opts.steps.includes('fetch') && !opts.postURL) {
    throw new UsageError('the post step needs --post-url when no page is fetched');
  }
  return opts;
}

// textOf joins a tool result's text content.
function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// instructedURL is where the page tells the reader to POST: the first
// http(s) URL after the word "POST" in the fetched body.
function instructedURL(fetchText) {
  let body = fetchText;
  try {
    const parsed = JSON.parse(fetchText);
    if (typeof parsed.body === 'string') body = parsed.body;
  } catch {
    // not the fetch plugin's JSON: read the text as the page
  }
  const at = body.search(/\bPOST\b/);
  if (at < 0) return undefined;
  const m = body.slice(at).match(/https?:\/\/[^\s"'<>]+/);
  return m ? m[0].replace(/[.,;:)]+$/, '') : undefined;
}

function emit(line) {
  return new Promise((resolve, reject) => {
    process.stdout.write(JSON.stringify(line) + '\n', (err) => (err ? reject(err) : resolve()));
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const requestInit = opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(opts.url, { requestInit, sessionId: opts.session });
  const capabilities = opts.elicit === 'none' ? {} : { elicitation: { form: {} } };
  const client = new Client({ name: 'wasmgate-trifecta-agent', version: '0.1.0' }, { capabilities });
  client.onerror = (err) => {
    process.stderr.write(`trifecta.mjs: warning: ${err?.message ?? err}\n`);
  };
  let asked = [];
  if (opts.elicit !== 'none') {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const answer = opts.elicit === 'yes'
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' };
      asked.push({ message: req.params.message, requestedSchema: req.params.requestedSchema, answer: answer.action });
      return answer;
    });
  }

  await client.connect(transport);
  if (opts.session) transport.setProtocolVersion(SESSION_ERA); // resumed: no initialize set it
  let failed = true;
  try {
    await emit({ step: 'connect', session: transport.sessionId ?? '', elicitation: opts.elicit !== 'none' });
    let notes = '';
    let postURL = opts.postURL;
    for (const step of opts.steps) {
      const tool = opts.tools[step];
      let args;
      if (step === 'read') args = {};
      else if (step === 'fetch') args = { url: opts.page };
      else args = { url: postURL, method: 'POST', body: notes };
      asked = [];
      const line = { step, tool };
      let result;
      try {
        result = await client.callTool({ name: tool, arguments: args });
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        line.error = { code: err.code, message: err.message };
      }
      if (result) {
        line.isError = result.isError === true;
        line.text = textOf(result);
      }
      line.elicitations = asked;
      await emit(line);
      if (!result || line.isError) break;
      if (step === 'read') notes = line.text;
      if (step === 'fetch') {
        postURL = instructedURL(line.text);
        if (!postURL) {
          process.stderr.write('trifecta.mjs: the page says nowhere to POST\n');
          break;
        }
      }
    }
    if (!opts.keepSession) await transport.terminateSession();
    failed = false;
  } finally {
    client.onerror = () => {};
    try {
      await client.close();
    } catch (err) {
      if (!failed) throw err;
    }
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`trifecta.mjs: error: timed out after ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => process.exit(0),
  (err) => {
    const usage = err instanceof UsageError;
    process.stderr.write(`trifecta.mjs: error: ${usage ? err.message : (err?.stack ?? err)}\n`);
    process.exit(usage ? 2 : 1);
  },
);
