package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Word lists of the synthetic catalog: systems a gateway fronts, what
// their tools act on, and how.
var (
	synthSources = []string{
		"github", "gitlab", "jira", "linear", "slack", "discord", "notion", "confluence",
		"postgres", "mysql", "sqlite", "redis", "mongo", "elastic", "s3", "gcs",
		"files", "browser", "calendar", "gmail", "outlook", "drive", "dropbox", "box",
		"stripe", "shopify", "salesforce", "hubspot", "zendesk", "intercom", "twilio", "sendgrid",
		"kubernetes", "docker", "terraform", "aws", "azure", "gcp", "datadog", "sentry",
		"pagerduty", "grafana", "prometheus", "vercel", "netlify", "cloudflare", "figma", "miro",
		"asana", "trello", "airtable", "sheets", "docs", "youtube", "spotify", "maps",
		"weather", "news", "wiki", "memory",
	}
	synthVerbs = []string{
		"get", "list", "create", "update", "delete", "search", "read", "write", "move", "copy",
		"archive", "restore", "export", "import", "sync", "assign", "close", "open", "merge", "comment",
		"tag", "share", "download", "upload", "summarize", "validate", "schedule", "cancel", "approve", "publish",
	}
	synthObjects = []string{
		"issue", "pull_request", "branch", "commit", "repository", "file", "directory", "page", "document", "comment",
		"message", "channel", "thread", "user", "team", "project", "task", "label", "milestone", "release",
		"table", "row", "query", "index", "schema", "bucket", "object", "snapshot", "backup", "secret",
		"event", "invite", "attendee", "email", "draft", "attachment", "folder", "invoice", "payment", "customer",
		"subscription", "order", "product", "ticket", "contact", "deal", "pod", "deployment", "service", "namespace",
		"container", "image", "volume", "cluster", "alert", "incident", "dashboard", "metric", "log", "trace",
		"webhook", "domain", "certificate", "record", "frame", "board", "card", "sheet", "cell", "video",
		"playlist", "track", "route", "place", "forecast", "article", "entity", "relation", "observation", "note",
	}
	synthAdjectives = []string{
		"current", "recent", "archived", "shared", "private", "public", "pending", "active", "draft", "remote",
		"local", "default", "selected", "related", "existing", "new", "open", "closed", "primary", "linked",
	}
	synthFiller = []string{
		"Returns the result as structured JSON with identifiers and timestamps.",
		"Requires an authenticated connection with sufficient permissions.",
		"Results are paginated; use the cursor to fetch the next page.",
		"The operation is idempotent and safe to retry on failure.",
		"Useful when an agent needs an overview before making changes.",
		"Fields that are not provided keep their previous values.",
		"Large responses are truncated to the configured maximum size.",
		"Supports filtering by owner, status and creation date.",
		"Only items the caller has access to are included.",
		"Changes are applied immediately and cannot be undone.",
		"Use this instead of listing everything when the name is known.",
		"Errors are reported with a code and a human readable message.",
	}
	synthParams = []Param{
		{"id", "The unique identifier of the item."},
		{"name", "The name of the item to act on."},
		{"owner", "The account or organisation that owns it."},
		{"query", "Free text to match against titles and bodies."},
		{"limit", "Maximum number of results to return."},
		{"cursor", "Opaque cursor from a previous page."},
		{"status", "Filter by status, for example open or closed."},
		{"path", "Path of the file or folder, relative to the root."},
		{"content", "The text content to write or send."},
		{"title", "A short human readable title."},
		{"body", "The body text, in Markdown."},
		{"labels", "Labels or tags to apply."},
		{"assignee", "The user to assign it to."},
		{"since", "Only items changed after this timestamp."},
		{"until", "Only items changed before this timestamp."},
		{"region", "The region or zone to use."},
		{"namespace", "The namespace it lives in."},
		{"format", "Output format, such as json, csv or text."},
		{"recursive", "Whether to include nested items."},
		{"dryRun", "Report what would change without changing anything."},
		{"timeoutMs", "How long to wait, in milliseconds."},
		{"email", "An email address."},
		{"url", "The URL to open or fetch."},
		{"amount", "The amount, in the smallest currency unit."},
	}
)

// Synthetic returns n deterministic, realistic tool docs: names like
// github_list_pull_request spread over tens of sources, 20-40 word
// descriptions, 2-5 parameters. The same n and seed give the same docs.
func Synthetic(n int, seed uint64) []Doc {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	docs := make([]Doc, 0, n)
	seen := make(map[string]bool, n)
	for i := 0; len(docs) < n; i++ {
		src := synthSources[r.IntN(len(synthSources))]
		verb := synthVerbs[r.IntN(len(synthVerbs))]
		obj := synthObjects[r.IntN(len(synthObjects))]
		adj := synthAdjectives[r.IntN(len(synthAdjectives))]
		name := src + "_" + verb + "_" + obj
		if seen[name] {
			name = src + "_" + verb + "_" + adj + "_" + obj
		}
		if seen[name] {
			name = fmt.Sprintf("%s_%d", name, i)
		}
		seen[name] = true
		words := strings.ReplaceAll(obj, "_", " ")
		var b strings.Builder
		fmt.Fprintf(&b, "%s the %s %s in %s.", capitalize(verb), adj, words, capitalize(src))
		for wc := 6; wc < 20+r.IntN(21); {
			f := synthFiller[r.IntN(len(synthFiller))]
			b.WriteByte(' ')
			b.WriteString(f)
			wc += strings.Count(f, " ") + 1
		}
		np := 2 + r.IntN(4)
		params := make([]Param, 0, np)
		for _, k := range r.Perm(len(synthParams))[:np] {
			params = append(params, synthParams[k])
		}
		docs = append(docs, Doc{
			Name:        name,
			Title:       capitalize(verb) + " " + words,
			Description: b.String(),
			Source:      src,
			Params:      params,
		})
	}
	return docs
}

// SyntheticQueries returns n deterministic requests in the words of the
// Synthetic catalog, from bare keywords to whole sentences.
func SyntheticQueries(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	forms := []string{
		"%[1]s %[2]s",
		"%[1]s the %[3]s %[2]s in %[4]s",
		"please %[1]s my %[2]s",
		"can you %[1]s the %[2]s from %[4]s for me",
		"%[4]s %[2]s",
		"I need to %[1]s a %[3]s %[2]s",
	}
	qs := make([]string, n)
	for i := range qs {
		qs[i] = fmt.Sprintf(forms[r.IntN(len(forms))],
			synthVerbs[r.IntN(len(synthVerbs))],
			strings.ReplaceAll(synthObjects[r.IntN(len(synthObjects))], "_", " "),
			synthAdjectives[r.IntN(len(synthAdjectives))],
			synthSources[r.IntN(len(synthSources))])
	}
	return qs
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
