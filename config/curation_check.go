package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
)

// Check reports (with bad, keys under key: "plugins[0]") what is wrong
// with c: a pattern path.Match cannot read, an override key or new name
// that is no valid tool name, two overrides giving one name, and an
// override of a tool the filter leaves out (an error, not a warning: it
// would never apply, and the config says two opposite things). Whether a
// new name collides with another tool of the source is known once the
// source lists its tools; the index refuses it then, naming both.
func (c *Curation) Check(key string, bad Bad) {
	checkLabels(key+".labels", c.Labels, bad)
	for _, f := range []struct {
		name     string
		patterns []string
	}{{"tools.include", c.Tools.Include}, {"tools.exclude", c.Tools.Exclude},
		{"skills.include", c.Skills.Include}, {"skills.exclude", c.Skills.Exclude}} {
		for i, p := range f.patterns {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				bad(fmt.Sprintf("%s.%s[%d]", key, f.name, i), "%q is not a valid pattern (shell patterns: *, ?, [a-z]; see path.Match)", p)
			}
		}
	}
	given := map[string]string{} // new name -> the override giving it
	for _, own := range slices.Sorted(maps.Keys(c.Overrides)) {
		o := c.Overrides[own]
		k := key + ".overrides." + own
		checkLabels(k+".labels", o.Labels, bad)
		if o.LabelsOnly() {
			// Labels may name a prompt, or a resource by URI or name,
			// as well as a tool.
			continue
		}
		if !ValidName(own) {
			bad(k, "%q is not a tool name: use 1-64 letters, digits, '_', '-' or '.'", own)
			continue
		}
		if o.Name != "" && !ValidName(o.Name) {
			bad(k+".name", "%q is not a tool name: use 1-64 letters, digits, '_', '-' or '.'", o.Name)
			continue
		}
		if why := c.excludedBy(own); why != "" {
			bad(k, "tool %q is left out by %s.tools.%s: an override of it never applies (remove one)", own, key, why)
			continue
		}
		name := c.NewName(own)
		if prev, ok := given[name]; ok {
			bad(k+".name", "%q is also the name %s.overrides.%s gives", name, key, prev)
			continue
		}
		given[name] = own
	}
}

// LabelsOnly reports whether o sets nothing but flow labels.
func (o Override) LabelsOnly() bool {
	return o.Labels != nil && o.Name == "" && o.Title == "" && o.Description == "" && o.Annotations == nil
}

// checkLabels reports labels that are no valid label name, or repeated.
func checkLabels(key string, labels []string, bad Bad) {
	for i, l := range labels {
		if !ValidName(l) {
			bad(fmt.Sprintf("%s[%d]", key, i), "%q is not a label: use 1-64 letters, digits, '_', '-' or '.'", l)
		} else if slices.Index(labels, l) < i {
			bad(fmt.Sprintf("%s[%d]", key, i), "%q is listed twice", l)
		}
	}
}

// excludedBy says which filter key leaves the tool own out ("" if none).
func (c *Curation) excludedBy(own string) string {
	for i, p := range c.Tools.Exclude {
		if ok, _ := path.Match(p, own); ok {
			return fmt.Sprintf("exclude[%d] (%q)", i, p)
		}
	}
	if len(c.Tools.Include) == 0 {
		return ""
	}
	for _, p := range c.Tools.Include {
		if ok, _ := path.Match(p, own); ok {
			return ""
		}
	}
	return "include (no pattern matches it)"
}

// Allows reports whether the filter publishes the tool own.
func (c *Curation) Allows(own string) bool { return c == nil || c.excludedBy(own) == "" }

// NewName is the name (before the source's prefix) own is published
// under: its override's, or its own.
func (c *Curation) NewName(own string) string {
	if c != nil {
		if o, ok := c.Overrides[own]; ok && o.Name != "" {
			return o.Name
		}
	}
	return own
}

// Empty reports whether c changes nothing.
func (c *Curation) Empty() bool {
	return c == nil || len(c.Tools.Include) == 0 && len(c.Tools.Exclude) == 0 && len(c.Overrides) == 0 &&
		len(c.Skills.Include) == 0 && len(c.Skills.Exclude) == 0
}

// AllowsSkill reports whether c publishes the skill named name
// (skills.include, skills.exclude).
func (c *Curation) AllowsSkill(name string) bool {
	if c == nil {
		return true
	}
	for _, p := range c.Skills.Exclude {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(c.Skills.Include) == 0 {
		return true
	}
	for _, p := range c.Skills.Include {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
