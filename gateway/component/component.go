// Package component is the lifecycle every config-driven part of a
// snapshot shares (identity and policy, audit, plugins, relay sites,
// upstream servers, state, tracing, the request-state signer), as Caddy
// gives its modules:
//
//	Reuse(prev)         optional (Reuser): take over what the serving
//	                    snapshot's component of the same Name has and
//	                    cfg leaves unchanged (compiled plugins)
//	Provision(ctx, cfg) build from cfg; nothing that serves changes
//	Validate()          optional (Validator): checks after every
//	                    component provisioned
//	Apply(ctx)          optional (Applier): once the snapshot serves
//	Retire(next)        optional (Retirer): the snapshot was replaced
//	                    by one built anew
//	Cleanup(ctx)        release; safe after a partial or failed Provision
//
// The roles that take another snapshot's component are typed by the
// component's own type (Reuser[T], Retirer[T], Differ[T]) and bound
// once by Bind; each component states the roles it plays with `var _`
// assertions, so a role whose signature drifts fails to compile.
package component

import (
	"context"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
)

// Component is one config-driven part of a snapshot.
type Component interface {
	// Name is unique among the components; Reuse is given the serving
	// snapshot's component of the same Name.
	Name() string
	Provision(ctx context.Context, cfg *loader.Config) error
	Cleanup(ctx context.Context)
}

// Reuser takes over what the serving snapshot's component of its own
// type has built, where the config leaves it unchanged.
type Reuser[T any] interface{ Reuse(prev T) }

// Retirer is told that its snapshot was replaced by one built anew;
// next is the new snapshot's component of its type, or nil.
type Retirer[T any] interface{ Retire(next T) }

// Differ says what changed from prev (nil: none), one line per change,
// for the status page.
type Differ[T any] interface{ Changes(prev T) []string }

// Validator has checks that run once every component of the snapshot
// has been provisioned.
type Validator interface{ Validate() error }

// Applier has something to do once its snapshot serves (and never for a
// snapshot that failed to build).
type Applier interface{ Apply(ctx context.Context) }

// SourceProvider provides tool sources; the snapshot indexes them with
// everyone else's.
type SourceProvider interface{ Sources() []source.Source }

// Dynamic is a SourceProvider whose sources change while they serve (the
// pages of relay sites, the lists of upstream servers): what one of them
// cannot publish (a name another source has) is reported to it, never
// failing a build.
type Dynamic interface{ Dynamic() bool }

// Staler is a Dynamic component whose sources changed since the
// snapshot indexed them: the snapshot must be indexed again.
type Staler interface{ Stale() bool }

// Part is a component with its typed roles bound (Bind).
type Part struct {
	Component
	reuse   func(prev Component)
	retire  func(next Component)
	changes func(prev Component) []string
}

// Bind binds c's typed roles, where its type T is known.
func Bind[T Component](c T) Part {
	p := Part{Component: c}
	of := func(o Component) T { t, _ := o.(T); return t }
	if r, ok := any(c).(Reuser[T]); ok {
		p.reuse = func(prev Component) {
			if t, ok := prev.(T); ok {
				r.Reuse(t)
			}
		}
	}
	if r, ok := any(c).(Retirer[T]); ok {
		p.retire = func(next Component) { r.Retire(of(next)) }
	}
	if d, ok := any(c).(Differ[T]); ok {
		p.changes = func(prev Component) []string { return d.Changes(of(prev)) }
	}
	return p
}

// Reuse gives p the serving snapshot's component of its name, if p
// reuses.
func (p Part) Reuse(prev Component) {
	if p.reuse != nil && prev != nil {
		p.reuse(prev)
	}
}

// Retire tells p that next (nil: none) replaced it, if p cares.
func (p Part) Retire(next Component) {
	if p.retire != nil {
		p.retire(next)
	}
}

// Changes is what p says changed from prev, if it says.
func (p Part) Changes(prev Component) []string {
	if p.changes == nil {
		return nil
	}
	return p.changes(prev)
}
