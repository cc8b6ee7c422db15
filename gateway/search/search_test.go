package search

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func words(s string) []string {
	return appendWords(nil, s)
}

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"read_text_file", []string{"read", "text", "file"}},
		{"list-allowed-directories", []string{"list", "allowed", "directories"}},
		{"fs.readFile", []string{"fs", "read", "file", "readfile"}},
		{"readFile", []string{"read", "file", "readfile"}},
		{"ReadFile", []string{"read", "file", "readfile"}},
		{"HTTPServer", []string{"http", "server", "httpserver"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code", "gethttpresponsecode"}},
		{"s3bucket", []string{"s", "3", "bucket", "s3bucket"}},
		{"ec2Instance", []string{"ec", "2", "instance", "ec2instance"}},
		{"v2", []string{"v", "2", "v2"}},
		{"GitHub repo", []string{"git", "hub", "github", "repo"}},
		{"oauth2_token", []string{"oauth", "2", "oauth2", "token"}},
		{"Hello, World! it's", []string{"hello", "world", "it", "s"}},
		{"  ", nil},
		{"", nil},
		{"ÜberÄnderung", []string{"über", "änderung", "überänderung"}},
	} {
		if got := words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("appendWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJoinedSpelling(t *testing.T) {
	// "GitHub" in a description finds "github", and the other way round.
	x := Build([]Doc{
		{Name: "issues", Description: "Lists issues on GitHub."},
		{Name: "tickets", Description: "Lists tickets on the hub of git."},
		{Name: "github_repos", Description: "Lists repositories."},
	})
	if hits := x.Search("github", 3, nil); len(hits) != 2 || x.Doc(hits[1].Doc).Name != "issues" {
		t.Errorf("github: got %v, want github_repos and issues", names(x, hits))
	}
	if hits := x.Search("GitHub", 3, nil); len(hits) != 3 || x.Doc(hits[2].Doc).Name != "tickets" {
		t.Errorf("GitHub: got %v, want tickets last", names(x, hits))
	}
}

func TestStemming(t *testing.T) {
	st := stemmer{}
	for _, w := range []string{"reads", "reading", "read"} {
		if got := st.stem(w); got != "read" {
			t.Errorf("stem(%q) = %q, want read", w, got)
		}
	}
	if a, b := st.stem("directories"), st.stem("directory"); a != b {
		t.Errorf("directories -> %q, directory -> %q: want the same stem", a, b)
	}
	x := Build([]Doc{
		{Name: "a_tool", Description: "Reads the contents of a file."},
		{Name: "b_tool", Description: "Sends an email."},
	})
	hits := x.Search("reading files", 5, nil)
	if len(hits) != 1 || hits[0].Doc != 0 {
		t.Fatalf("reading files: got %v, want doc 0 only", hits)
	}
}

func TestStopwordsAlone(t *testing.T) {
	x := Build([]Doc{{Name: "the_tool", Description: "what is it"}, {Name: "other"}})
	if hits := x.Search("what is the", 5, nil); len(hits) != 0 {
		t.Errorf("a query of stopwords found %v", hits)
	}
}

func TestSynonyms(t *testing.T) {
	x := Build([]Doc{
		{Name: "notes_delete_note", Description: "Deletes a note permanently."},
		{Name: "notes_create_note", Description: "Creates a note."},
		{Name: "notes_fetch_note", Description: "Fetches a note by its id."},
	})
	for q, want := range map[string]string{
		"remove a note":   "notes_delete_note",
		"erase the note":  "notes_delete_note",
		"make a new note": "notes_create_note",
		"add note":        "notes_create_note",
		"retrieve a note": "notes_fetch_note",
		"show me a note":  "notes_fetch_note",
	} {
		hits := x.Search(q, 3, nil)
		if len(hits) == 0 || x.Doc(hits[0].Doc).Name != want {
			t.Errorf("%q: got %v, want %s first", q, names(x, hits), want)
		}
	}
	// A word the doc has itself beats a synonym of it.
	x = Build([]Doc{
		{Name: "a_remove", Description: "Removes it."},
		{Name: "b_delete", Description: "Deletes it."},
	})
	hits := x.Search("delete", 2, nil)
	if len(hits) != 2 || x.Doc(hits[0].Doc).Name != "b_delete" || hits[0].Score <= hits[1].Score {
		t.Errorf("delete: got %v %v, want b_delete first and strictly better", names(x, hits), hits)
	}
}

func TestPhraseSynonyms(t *testing.T) {
	// "pr" finds the words of "pull request"; "pull" alone does not find "pr".
	x := Build([]Doc{
		{Name: "git_merge_pull_request", Description: "Merges a pull request."},
		{Name: "git_merge_branch", Description: "Merges a branch."},
		{Name: "x_pr_tool", Description: "Does things."},
	})
	if hits := x.Search("merge PR 12", 2, nil); len(hits) == 0 || x.Doc(hits[0].Doc).Name != "git_merge_pull_request" {
		t.Errorf("merge PR: got %v", names(x, hits))
	}
	if hits := x.Search("pull", 3, nil); len(hits) != 1 || x.Doc(hits[0].Doc).Name != "git_merge_pull_request" {
		t.Errorf("pull: got %v, want only git_merge_pull_request", names(x, hits))
	}
}

func TestSchemaValues(t *testing.T) {
	// An enum says what a tool does when its description does not.
	x := Build([]Doc{
		{Name: "calc", Description: "Arithmetic on two numbers.", Values: []string{"add", "subtract"}},
		{Name: "stats", Description: "Numbers about numbers."},
	})
	if hits := x.Search("subtract two numbers", 2, nil); len(hits) == 0 || x.Doc(hits[0].Doc).Name != "calc" {
		t.Errorf("subtract: got %v", names(x, hits))
	}
	if hits := x.Search("7 minus 3", 2, nil); len(hits) == 0 || x.Doc(hits[0].Doc).Name != "calc" {
		t.Errorf("minus: got %v", names(x, hits))
	}
}

func TestSourceSmoothing(t *testing.T) {
	// Both tools have "list"; the query's other word is about the notes
	// source as a whole, so its list tool ranks first, though neither
	// tool has the word itself.
	x := Build([]Doc{
		{Name: "chat_list", Source: "chat", Description: "List things."},
		{Name: "chat_post", Source: "chat", Description: "Post a message to a channel."},
		{Name: "notes_list", Source: "notes", Description: "List things."},
		{Name: "notes_write", Source: "notes", Description: "Write a notebook page."},
		{Name: "notes_read", Source: "notes", Description: "Read a notebook page."},
	})
	hits := x.Search("list my notebook", 5, nil)
	rank := map[string]int{}
	for i, h := range hits {
		rank[x.Doc(h.Doc).Name] = i
	}
	if len(hits) != 4 || rank["notes_list"] > rank["chat_list"] {
		t.Errorf("notes_list after chat_list: %v", names(x, hits))
	}
	// Smoothing adds to docs that matched, it does not make others match.
	if hits := x.Search("channel", 5, nil); len(hits) != 1 || x.Doc(hits[0].Doc).Name != "chat_post" {
		t.Errorf("channel: got %v", names(x, hits))
	}
}

func TestNameCoverage(t *testing.T) {
	// A doc whose name is all query words beats one that has them as
	// often, but half of them outside its name (its title, description).
	x := Build([]Doc{
		{Name: "dir_tree", Title: "List tree", Description: "List the tree: list nested entries, list them recursively, as a list."},
		{Name: "dir_list", Description: "Shows the entries."},
	})
	if hits := x.Search("dir list", 2, nil); len(hits) != 2 || x.Doc(hits[0].Doc).Name != "dir_list" || hits[0].Score <= hits[1].Score {
		t.Errorf("got %v %v, want dir_list strictly first", names(x, hits), hits)
	}
}

func names(x *Index, hits []Hit) []string {
	var ns []string
	for _, h := range hits {
		ns = append(ns, x.Doc(h.Doc).Name)
	}
	return ns
}

func TestAllow(t *testing.T) {
	x := Build(Synthetic(500, 1))
	var asked []int
	allow := func(d int) bool {
		asked = append(asked, d)
		return d%3 != 0
	}
	all := x.Search("list issues in github", x.Len(), nil)
	hits := x.Search("list issues in github", 10, allow)
	if len(hits) != 10 {
		t.Fatalf("got %d hits, want 10", len(hits))
	}
	scored := map[int]bool{}
	for _, h := range all {
		scored[h.Doc] = true
	}
	for _, d := range asked {
		if !scored[d] {
			t.Errorf("allow called for doc %d (%s), which did not score", d, x.Doc(d).Name)
		}
	}
	for _, h := range hits {
		if h.Doc%3 == 0 {
			t.Errorf("refused doc %d returned", h.Doc)
		}
	}
	// The allowed hits are the unfiltered ranking minus the refused docs.
	var want []Hit
	for _, h := range all {
		if h.Doc%3 != 0 && len(want) < 10 {
			want = append(want, h)
		}
	}
	if !slices.Equal(hits, want) {
		t.Errorf("filtered hits %v, want %v", hits, want)
	}
	// Refusing everything returns nothing, having asked about each scored doc once.
	asked = asked[:0]
	if hits := x.Search("list issues in github", 10, func(d int) bool { asked = append(asked, d); return false }); len(hits) != 0 {
		t.Errorf("refuse all: got %v", hits)
	}
	if len(asked) != len(all) {
		t.Errorf("refuse all: allow asked %d times, %d docs scored", len(asked), len(all))
	}
}

func TestLimit(t *testing.T) {
	x := Build(Synthetic(300, 2))
	for _, limit := range []int{-1, 0, 1, 3, 50} {
		hits := x.Search("create", limit, nil)
		if want := max(limit, 0); len(hits) != want {
			t.Errorf("limit %d: %d hits", limit, len(hits))
		}
		if !slices.IsSortedFunc(hits, func(a, b Hit) int { return -cmpScore(a, b) }) {
			t.Errorf("limit %d: not sorted: %v", limit, hits)
		}
	}
}

func cmpScore(a, b Hit) int {
	switch {
	case a.Score < b.Score:
		return -1
	case a.Score > b.Score:
		return 1
	}
	return 0
}

func TestTiesByName(t *testing.T) {
	docs := []Doc{
		{Name: "zeta", Description: "Uploads a widget."},
		{Name: "alpha", Description: "Uploads a widget."},
		{Name: "mid", Description: "Uploads a widget."},
	}
	x := Build(docs)
	hits := x.Search("widget", 3, nil)
	if got := names(x, hits); !slices.Equal(got, []string{"alpha", "mid", "zeta"}) {
		t.Errorf("ties: got %v, want by name", got)
	}
	if hits[0].Score != hits[2].Score {
		t.Errorf("identical docs scored differently: %v", hits)
	}
}

func TestEmpty(t *testing.T) {
	x := Build(Synthetic(50, 3))
	for _, q := range []string{"", "   ", "!!!", "\x00", "the of and"} {
		if hits := x.Search(q, 5, nil); len(hits) != 0 {
			t.Errorf("%q: got %v", q, hits)
		}
	}
	empty := Build(nil)
	if empty.Len() != 0 || empty.Search("anything", 5, nil) != nil {
		t.Error("an empty index found something")
	}
}

func TestExactNameFirst(t *testing.T) {
	docs := []Doc{
		{Name: "files_read_text_file", Description: "Read a text file."},
		{Name: "files_read_file", Description: "Read a file. Read the file's text: read text file, read any file, text file reader."},
		{Name: "files_read_media_file", Description: "Read an image or audio file."},
	}
	x := Build(docs)
	for _, q := range []string{"files_read_file", "  FILES_READ_FILE "} {
		hits := x.Search(q, 3, nil)
		if len(hits) == 0 || x.Doc(hits[0].Doc).Name != "files_read_file" {
			t.Errorf("%q: got %v", q, names(x, hits))
		}
	}
	// Even when every word of the name is a stopword.
	x = Build([]Doc{{Name: "is_it"}, {Name: "it", Description: "is it"}})
	if hits := x.Search("is_it", 3, nil); len(hits) != 1 || hits[0].Doc != 0 || hits[0].Score <= 0 {
		t.Errorf("is_it: got %v", hits)
	}
}

func TestFields(t *testing.T) {
	// A word in the name outranks the same word in the description, and
	// parameters and the source count too.
	x := Build([]Doc{
		{Name: "x_archive", Description: "Stores things for later."},
		{Name: "x_store", Description: "Moves things to the archive."},
		{Name: "x_other", Description: "Does something.", Params: []Param{{Name: "timeoutMs", Description: "How long to wait."}}},
		{Name: "y_tool", Source: "kubernetes", Description: "Does something."},
	})
	if hits := x.Search("archive", 2, nil); len(hits) != 2 || x.Doc(hits[0].Doc).Name != "x_archive" {
		t.Errorf("archive: got %v", names(x, hits))
	}
	if hits := x.Search("timeout", 2, nil); len(hits) != 1 || x.Doc(hits[0].Doc).Name != "x_other" {
		t.Errorf("timeout: got %v", names(x, hits))
	}
	if hits := x.Search("kubernetes", 2, nil); len(hits) != 1 || x.Doc(hits[0].Doc).Name != "y_tool" {
		t.Errorf("kubernetes: got %v", names(x, hits))
	}
}

func TestDocOf(t *testing.T) {
	tool := mcp.NewTool("read_text_file",
		mcp.WithDescription("Read a file as text."),
		mcp.WithString("path", mcp.Description("Where the file is.")),
		mcp.WithNumber("head", mcp.Description("First N lines.")),
		mcp.WithTitleAnnotation("Read text file"),
	)
	d := DocOf("files", tool)
	if d.Values != nil {
		t.Errorf("values without enums: %v", d.Values)
	}
	if d.Name != "read_text_file" || d.Source != "files" || d.Title != "Read text file" || d.Description != "Read a file as text." {
		t.Errorf("DocOf: %+v", d)
	}
	if want := []Param{{"head", "First N lines."}, {"path", "Where the file is."}}; !slices.Equal(d.Params, want) {
		t.Errorf("params %v, want %v", d.Params, want)
	}
	tool.Title = "Own title"
	if d := DocOf("files", tool); d.Title != "Own title" {
		t.Errorf("Title not preferred: %q", d.Title)
	}

	raw := mcp.NewToolWithRawSchema("q", "Query.", json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"The SQL."},"odd":true}}`))
	if d := DocOf("db", raw); !slices.Equal(d.Params, []Param{{"odd", ""}, {"sql", "The SQL."}}) {
		t.Errorf("raw params: %v", d.Params)
	}
	enums := mcp.NewToolWithRawSchema("calc", "Arithmetic.", json.RawMessage(`{"title":"Calculator","type":"object","properties":{
		"op":{"type":"string","title":"Operation","enum":["add","subtract",3],"default":"add"},
		"unit":{"const":"metre","examples":["m","km"]},
		"tags":{"type":"array","items":{"enum":["red","green"]}}}}`))
	if d := DocOf("db", enums); !slices.Equal(d.Values, []string{"Calculator", "Operation", "add", "subtract", "red", "green", "metre", "m", "km"}) {
		t.Errorf("raw values: %q", d.Values)
	}
	parsedEnum := mcp.NewTool("t", mcp.WithString("mode", mcp.Enum("driving", "walking")))
	if d := DocOf("maps", parsedEnum); !slices.Equal(d.Values, []string{"driving", "walking"}) {
		t.Errorf("values: %q", d.Values)
	}
	bad := mcp.NewToolWithRawSchema("q", "Query.", json.RawMessage(`[1,2]`))
	if d := DocOf("db", bad); d.Params != nil {
		t.Errorf("bad raw schema params: %v", d.Params)
	}

	// Parsed from JSON (as the catalog arrives), the schema's order is kept.
	var parsed mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":{"type":"object","properties":{"zeta":{"description":"z"},"alpha":{}}}}`), &parsed); err != nil {
		t.Fatal(err)
	}
	got := DocOf("s", parsed).Params
	var gotNames []string
	for _, p := range got {
		gotNames = append(gotNames, p.Name)
	}
	if strings.Join(gotNames, ",") != "zeta,alpha" && strings.Join(gotNames, ",") != "alpha,zeta" {
		t.Errorf("parsed params: %v", got)
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	a, b := Synthetic(2000, 7), Synthetic(2000, 7)
	if len(a) != 2000 {
		t.Fatalf("len %d", len(a))
	}
	seen := map[string]bool{}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !slices.Equal(a[i].Params, b[i].Params) {
			t.Fatalf("doc %d differs between runs", i)
		}
		if seen[a[i].Name] {
			t.Fatalf("duplicate name %s", a[i].Name)
		}
		seen[a[i].Name] = true
		if n := len(strings.Fields(a[i].Description)); n < 15 || n > 50 {
			t.Errorf("doc %d: %d description words", i, n)
		}
		if n := len(a[i].Params); n < 2 || n > 5 {
			t.Errorf("doc %d: %d params", i, n)
		}
	}
	if c := Synthetic(10, 8); c[0].Name == a[0].Name && c[1].Name == a[1].Name {
		t.Error("another seed gave the same catalog")
	}
}

func TestConcurrentSearch(t *testing.T) {
	x := Build(Synthetic(1000, 4))
	qs := SyntheticQueries(200, 4)
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		want[i] = x.Search(q, 8, nil)
	}
	done := make(chan bool)
	for g := range 4 {
		go func() {
			ok := true
			for i := range qs {
				j := (i + g*50) % len(qs)
				if !slices.Equal(x.Search(qs[j], 8, nil), want[j]) {
					ok = false
				}
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a concurrent search differed from the sequential one")
		}
	}
}
