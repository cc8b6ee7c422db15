package gateway

import (
	"reflect"
	"slices"
	"testing"
)

// TestDeriveCopiesEverySnapshotField: derive (relay.go) builds a snapshot
// serving what the current one serves, field by field. A field added to
// Snapshot must be copied there too (or be listed here as rebuilt); this
// test fails until it is.
func TestDeriveCopiesEverySnapshotField(t *testing.T) {
	handled := []string{
		// copied from the serving snapshot
		"Config", "plugins", "authn", "pol", "stdio", "token", "adminToken", "origins", "authnRefs",
		// indexed afresh
		"tools", "resources", "templates", "prompts", "owner", "relay",
		// the new snapshot's own lifecycle
		"mu", "refs", "retired", "drained",
	}
	typ := reflect.TypeFor[Snapshot]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !slices.Contains(handled, name) {
			t.Errorf("Snapshot.%s is new: copy it in derive (gateway/relay.go) and list it here", name)
		}
	}
}
