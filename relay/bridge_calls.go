package relay

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/wasmgate/wasmgate/config"
)

// register replaces what the page provides and acknowledges it once the
// gateway publishes it.
func (b *bridge) register(f *inFrame) {
	if !b.registers.Allow() {
		b.reject("rate_limited")
		conf, _ := b.st.settings()
		if err := b.send(errorFrame{Type: typeError, ID: f.ID, Reason: "rate_limited",
			Message: fmt.Sprintf("registration refused: more than %d register frames a minute (max_registrations_per_minute); what the page registered before still serves", conf.MaxRegistrations)}); err != nil {
			b.log.Debug("relay: could not refuse a registration", "error", err)
		}
		return
	}
	conf, _ := b.st.settings()
	reg := registration{tools: f.Tools, prompts: f.Prompts}
	refused := b.confine(conf, f, &reg)
	reg.refused = refused
	if !b.st.register(b, reg) {
		return
	}
	b.r.meshPublish(b.st)
	warnings := append(refused, b.r.changed(b.st.name)...)
	ack := registeredFrame{Type: typeRegistered, ID: f.ID, Tools: []string{}, Resources: []string{}, Prompts: []string{}, Warnings: warnings}
	cur := &conf.Curation // the names the gateway publishes: curated, under the prefix
	for _, t := range reg.tools {
		if !cur.Allows(t.Name) {
			ack.Warnings = append(ack.Warnings, fmt.Sprintf("%s: tool %q not published: the site's tools.include/exclude leave it out", conf.Key, t.Name))
			continue
		}
		ack.Tools = append(ack.Tools, config.PrefixedName(conf.Prefix, cur.NewName(t.Name)))
	}
	for _, r := range reg.resources {
		ack.Resources = append(ack.Resources, r.URI)
	}
	for _, r := range reg.templates {
		ack.Resources = append(ack.Resources, r.URITemplate)
	}
	for _, p := range reg.prompts {
		ack.Prompts = append(ack.Prompts, config.PrefixedName(conf.Prefix, p.Name))
	}
	b.log.Info("relay: page registered", "tools", len(reg.tools), "resources", len(reg.resources)+len(reg.templates), "prompts", len(reg.prompts))
	for _, w := range warnings {
		b.log.Warn("relay: not published", "problem", w)
	}
	if err := b.send(ack); err != nil {
		b.log.Debug("relay: could not acknowledge a registration", "error", err)
	}
}

// confine keeps in reg the resources and templates of f under a scheme
// the site owns (relayconfig.SiteConfig.OwnsURI); each other one is
// refused for itself alone: a warning for the page, counted in
// wasmgate_claims_refused_total. The page keeps the rest.
func (b *bridge) confine(conf SiteConfig, f *inFrame, reg *registration) (warnings []string) {
	refuse := func(what, uri string) {
		warnings = append(warnings, fmt.Sprintf("%s: %s %q not published: outside the site's namespace; %s", conf.Key, what, uri, conf.NamespaceHint()))
		b.r.m.ClaimsRefused.WithLabelValues(conf.Name).Inc()
	}
	for _, r := range f.Resources {
		if conf.OwnsURI(r.URI) {
			reg.resources = append(reg.resources, r)
		} else {
			refuse("resource", r.URI)
		}
	}
	for _, r := range f.ResourceTemplates {
		if conf.OwnsURI(r.URITemplate) {
			reg.templates = append(reg.templates, r)
		} else {
			refuse("resource template", r.URITemplate)
		}
	}
	return warnings
}

// deliver hands a result to the call waiting for it. A result for a call
// that already ended (timed out, cancelled) is late; one for an id never
// sent is unknown. Both are ignored and counted.
func (b *bridge) deliver(id uint64, rep reply) {
	b.mu.Lock()
	ch, ok := b.pending[id]
	delete(b.pending, id)
	sent := b.nextID
	b.mu.Unlock()
	switch {
	case ok:
		ch <- rep
	case id <= sent:
		b.reject("late")
	default:
		b.reject("unknown_id")
		b.log.Debug("relay: result for a call id never sent", "id", id)
	}
}

// call sends the frame that frame makes for a new call id and waits for
// its result, the end of ctx (the page is told to cancel, except in
// wu-legacy, which has no such frame) or the end of the bridge.
func (b *bridge) call(ctx context.Context, s *Site, frame func(id uint64) any) (reply, error) {
	ch := make(chan reply, 1)
	b.mu.Lock()
	if b.gone {
		why := b.why
		b.mu.Unlock()
		return reply{}, s.callFailure(ctx, why)
	}
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()

	if err := b.send(frame(id)); err != nil {
		b.forget(id)
		b.shutdown(websocket.StatusInternalError, "write failed")
		return reply{}, s.callFailure(ctx, "writing the call failed: "+err.Error())
	}
	select {
	case rep := <-ch:
		return rep, nil
	case <-b.done:
		b.forget(id)
		return reply{}, s.callFailure(ctx, b.whyGone())
	case <-ctx.Done():
		b.forget(id)
		reason := "cancelled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "timeout"
		}
		if !b.legacy {
			_ = b.send(cancelFrame{Type: typeCancel, ID: id, Reason: reason})
		}
		return reply{}, s.callFailure(ctx, "")
	}
}

func (b *bridge) forget(id uint64) {
	b.mu.Lock()
	delete(b.pending, id)
	b.mu.Unlock()
}

// closeWhy says why a read ended, for the message of failed calls.
func closeWhy(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Reason != "" {
			return fmt.Sprintf("close %d: %s", ce.Code, ce.Reason)
		}
		return fmt.Sprintf("close %d", ce.Code)
	}
	return "connection lost"
}

// truncateReason fits a close reason in a control frame (123 bytes).
func truncateReason(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
