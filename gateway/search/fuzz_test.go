package search

import (
	"testing"
)

// FuzzSearch indexes a doc made of fuzzed text among a few fixed ones and
// searches it with a fuzzed query: no panic, at most limit hits, sorted
// best first with ties by name, positive scores, only allowed docs, and
// allow asked only about docs that scored.
func FuzzSearch(f *testing.F) {
	f.Add("read the file", "files_read_text_file", "Read a text file.", "path", "files", uint8(5), uint8(1))
	f.Add("HTTPServer_v2", "getHTTPResponse", "ÜberÄnderung 3x", "s3Bucket", "aws", uint8(3), uint8(2))
	f.Add("", "", "", "", "", uint8(0), uint8(0))
	f.Add("the of and", "a", "is it", "", "", uint8(10), uint8(3))
	f.Fuzz(func(t *testing.T, query, name, desc, param, source string, limit, mod uint8) {
		docs := []Doc{
			{Name: "files_read_text_file", Description: "Read the complete contents of a file as text.", Source: "files",
				Params: []Param{{"path", "The file's path."}}},
			{Name: name, Title: query, Description: desc, Source: source, Params: []Param{{param, desc}}},
			{Name: "memory_create_entities", Description: "Create entities in the knowledge graph.", Source: "memory"},
			{Name: name + "_2", Description: desc + " " + query, Source: source},
		}
		x := Build(docs)
		scored := map[int]bool{}
		for _, h := range x.Search(query, len(docs), nil) {
			scored[h.Doc] = true
		}
		m := int(mod%3) + 1
		allow := func(d int) bool {
			if !scored[d] {
				t.Errorf("allow asked about doc %d, which did not score", d)
			}
			return d%m == 0
		}
		hits := x.Search(query, int(limit%8), allow)
		if len(hits) > int(limit%8) {
			t.Fatalf("%d hits, limit %d", len(hits), limit%8)
		}
		for i, h := range hits {
			if h.Doc < 0 || h.Doc >= len(docs) || h.Doc%m != 0 {
				t.Errorf("hit %d: doc %d not allowed", i, h.Doc)
			}
			if !(h.Score > 0) {
				t.Errorf("hit %d: score %v", i, h.Score)
			}
			if i > 0 && x.better(h, hits[i-1]) {
				t.Errorf("hits out of order: %v", hits)
			}
		}
	})
}
