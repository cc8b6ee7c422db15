package config

import "strings"

// The prefix of a source (plugins, relay sites, and upstream servers to
// come) means one thing for every kind: it is joined to each tool and
// prompt name with "_", unless it already ends in one of "_", "-" or ".",
// in which case it is put before the name as is:
//
//	prefix   name        exposed
//	""       calculate   calculate
//	demo     calculate   demo_calculate
//	demo_    calculate   demo_calculate
//	v2-      calculate   v2-calculate
//	acme.    calculate   acme.calculate
//
// Resource URIs are not names: a plugin's prefix goes after the scheme as
// it is written, trailing separator included (see the gateway's
// ExposedURI), so that no URI served so far changes.

// PrefixSeparators are the characters that, ending a prefix, join it to a
// name without another "_".
const PrefixSeparators = "_-."

// NamePrefix is what prefix puts before every name: "" for none, the
// prefix itself when it ends in a separator, else the prefix and "_".
func NamePrefix(prefix string) string {
	if prefix == "" || strings.ContainsRune(PrefixSeparators, rune(prefix[len(prefix)-1])) {
		return prefix
	}
	return prefix + "_"
}

// PrefixedName is name as a source with prefix exposes it.
func PrefixedName(prefix, name string) string { return NamePrefix(prefix) + name }
