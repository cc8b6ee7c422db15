// Package trust holds the gateway to its lock file (gateway.lock, issue
// 20, docs/trust.md): what an operator approved of every source. A build
// whose sources differ from it in a module digest, an upstream's command
// or URL, or a grant is refused before anything of it runs (Checker;
// trust.on_change refuse or withhold; warn logs it); what a source
// publishes (tools, prompts, resources) that differs from the lock, or
// is not in it, is withheld by the index's Gate (withhold: that entry;
// refuse: the whole source; warn: served and logged), counted, and shown
// on the status page, until `wasmgate lock` approves it. What the lock
// pins of a source beyond its lists, the source says (source.Pinner).
package trust
