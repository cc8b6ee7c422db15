package importer

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Taken are the names a gateway.yaml already gives its sources (plugins,
// relay sites and upstreams), each with where it is ("upstreams[1]").
type Taken map[string]string

// TakenNames reads the source names of a gateway.yaml.
func TakenNames(src []byte) (Taken, error) {
	_, root, err := parseRoot(src)
	if err != nil {
		return nil, err
	}
	taken := Taken{}
	add := func(seq *yaml.Node, key string) {
		if seq == nil || seq.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range seq.Content {
			if n := mapValue(item, "name"); n != nil && n.Kind == yaml.ScalarNode {
				if _, dup := taken[n.Value]; !dup {
					taken[n.Value] = fmt.Sprintf("%s[%d]", key, i)
				}
			}
		}
	}
	add(mapValue(root, "plugins"), "plugins")
	add(mapValue(mapValue(root, "relay"), "sites"), "relay.sites")
	add(mapValue(root, "upstreams"), "upstreams")
	return taken, nil
}

// Merge adds the imported servers of rs to the upstreams: of the
// gateway.yaml src and returns the new file. The file's comments and the
// order of its keys are kept (it is rewritten through yaml.v3's node
// tree, with two-space indentation). A server whose name the file already
// uses is refused, unless replace and the name is an upstream's, which is
// then replaced where it stands.
func Merge(src []byte, rs []*Result, replace bool) ([]byte, error) {
	doc, root, err := parseRoot(src)
	if err != nil {
		return nil, err
	}
	taken, err := TakenNames(src)
	if err != nil {
		return nil, err
	}
	var items []*yaml.Node
	if text := Items(rs, "  "); text != "" {
		var added yaml.Node
		if err := yaml.Unmarshal([]byte("upstreams:\n"+text), &added); err != nil {
			return nil, fmt.Errorf("the imported YAML does not parse (a bug): %w", err)
		}
		seq := mapValue(added.Content[0], "upstreams")
		if seq == nil {
			return nil, fmt.Errorf("nothing to add: every server was left out")
		}
		if seq.Kind == yaml.SequenceNode {
			items = seq.Content
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("nothing to add: every server was left out")
	}
	ups := mapValue(root, "upstreams")
	if ups == nil {
		ups = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "upstreams"}, ups)
	}
	switch {
	case ups.Kind == yaml.ScalarNode && ups.Tag == "!!null":
		*ups = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", HeadComment: ups.HeadComment, LineComment: ups.LineComment, FootComment: ups.FootComment}
	case ups.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("upstreams: is not a list (line %d)", ups.Line)
	}
	ups.Style = 0 // block, also for a file's "upstreams: []"
	for _, item := range items {
		name := mapValue(item, "name").Value
		where, exists := taken[name]
		if !exists {
			ups.Content = append(ups.Content, item)
			continue
		}
		if !replace {
			return nil, fmt.Errorf("%s already names %q: rename it there, or pass --replace to replace that upstream", where, name)
		}
		i := upstreamIndex(ups, name)
		if i < 0 {
			return nil, fmt.Errorf("%s already names %q, and --replace replaces upstreams only: rename one of them", where, name)
		}
		ups.Content[i] = item
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	doc.Kind, doc.Content = yaml.DocumentNode, []*yaml.Node{root}
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing the merged YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func upstreamIndex(ups *yaml.Node, name string) int {
	for i, item := range ups.Content {
		if n := mapValue(item, "name"); n != nil && n.Value == name {
			return i
		}
	}
	return -1
}

// parseRoot is a gateway.yaml's document and its top mapping (a new one
// for an empty file).
func parseRoot(src []byte) (doc, root *yaml.Node, err error) {
	doc = &yaml.Node{}
	if err := yaml.Unmarshal(src, doc); err != nil {
		return nil, nil, fmt.Errorf("not YAML: %w", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return doc, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	root = doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return doc, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: root.HeadComment}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("want a mapping of sections at the top (line %d)", root.Line)
	}
	return doc, root, nil
}

// mapValue is the value of key in the mapping m (nil if m is not a
// mapping or has no such key).
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
