package state

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/relay"
)

// Relay routing (relay.Mesh over Redis, docs/scale-out.md):
//
//   - <key_prefix>{relay}:site:<site> holds "<replica>\n<registration JSON>"
//     for SiteTTL: the replica whose page serves the site and what it
//     registered. The owner refreshes it every second (the relay's
//     heartbeat); a replica killed stops refreshing and its pages vanish
//     everywhere within SiteTTL, and sooner: readers leave out a holder
//     whose inbox has no subscriber (PUBSUB NUMSUB), which Redis knows as
//     soon as the killed process's connection closes. The braces put every site in one hash
//     slot, so one MGET reads them all on Redis Cluster too.
//   - <key_prefix>{relay}:epoch holds a random value the first replica to
//     find none writes: a reader that finds it missing or changed knows
//     Redis lost the entries (restarted empty, flushed) and does not read
//     them for settle, while their owners write them again.
//   - <key_prefix>relay:changed is published (by the scripts, in the
//     same round trip) when a site's entry changes: every replica reads
//     the entries again at once instead of at its next second.
//   - <key_prefix>relay:<replica> is each replica's inbox: calls
//     forwarded to it, the answers to the calls it forwarded, and
//     cancellations. A forwarded call is one PUBLISH by the caller and one
//     by the owner (two round trips in all, one on each replica); PUBLISH
//     answers how many replicas listen, so a call to a replica that is
//     gone fails at once.

// SiteTTL is how long a site's page stays listed after its replica's
// last refresh.
const SiteTTL = 5 * time.Second

// settle is how long after Redis comes back the entries are not read
// (their owners write them again within a second, Redis may have
// restarted empty): the sites listed stay as they were meanwhile.
const settle = 3 * time.Second

var errSettling = errors.New(Key + ": Redis is back; the relay's entries are being written again")

// maxServed bounds the forwarded calls this replica runs at once; more
// are answered busy at once.
const maxServed = 1024

// claimScript: KEYS[1] the site's entry; ARGV[1] this replica, ARGV[2]
// the TTL in ms, ARGV[3] the changed channel. It takes the site unless
// another replica holds it, whose id it returns; held here already, it
// is left as it is (the page here publishes what it registers).
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local owner = string.match(v, '^([^\n]*)')
  if owner ~= ARGV[1] then return owner end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ''
end
redis.call('SET', KEYS[1], ARGV[1] .. '\n', 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], KEYS[1])
return ''
`)

// takeoverScript: as claimScript, but takes the site from ARGV[4] (a
// replica that no longer listens) if it still holds it.
var takeoverScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local owner = string.match(v, '^([^\n]*)')
  if owner ~= ARGV[1] and owner ~= ARGV[4] then return owner end
end
redis.call('SET', KEYS[1], ARGV[1] .. '\n', 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], KEYS[1])
return ''
`)

// publishScript: ARGV[4] is the registration. It stores it (refreshing
// the TTL) unless another replica holds the site, whose id it returns.
var publishScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local owner = string.match(v, '^([^\n]*)')
  if owner ~= ARGV[1] then return owner end
end
local nv = ARGV[1] .. '\n' .. ARGV[4]
if v == nv then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return ''
end
redis.call('SET', KEYS[1], nv, 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], KEYS[1])
return ''
`)

// releaseScript deletes the site's entry if this replica holds it.
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.match(v, '^([^\n]*)') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], KEYS[1])
end
return ''
`)

// RelayMesh is the relay's view of the other replicas through Redis (a
// relay.Mesh). It belongs to one Store and one replica id.
type RelayMesh struct {
	s  *Store
	me string

	seq     atomic.Uint64
	mu      sync.Mutex
	pending map[string]forwarded // the calls this replica forwarded, by id

	epochMu     sync.Mutex
	epoch       string    // the epoch entry last read (see Read)
	settleUntil time.Time // a new epoch was seen: the entries are not read until then
}

// forwarded is a call waiting for its answer: the answer's channel, and
// gone, closed when the replica running it is seen gone.
type forwarded struct {
	owner  string
	answer chan []byte
	gone   chan struct{}
}

var _ relay.Mesh = (*RelayMesh)(nil)

// RelayMesh returns the mesh of the replica me over s.
func (s *Store) RelayMesh(me string) *RelayMesh {
	return &RelayMesh{s: s, me: me, pending: map[string]forwarded{}}
}

// Replica is this replica's id.
func (m *RelayMesh) Replica() string { return m.me }

// Closed is closed when the store is released for the last time: the
// relay stops using the mesh.
func (m *RelayMesh) Closed() <-chan struct{} { return m.s.closed }

func (m *RelayMesh) siteKey(site string) string { return m.s.key("{relay}", "site", site) }
func (m *RelayMesh) epochKey() string           { return m.s.key("{relay}", "epoch") }
func (m *RelayMesh) changedChan() string        { return m.s.key("relay", "changed") }
func (m *RelayMesh) inbox(replica string) string {
	return m.s.key("relay", replica)
}

func ttlMS() string { return strconv.FormatInt(SiteTTL.Milliseconds(), 10) }

func (m *RelayMesh) down(what string) error {
	if m.s.Up() {
		return nil
	}
	msg := "not answering"
	if e := m.s.lastErr.Load(); e != nil {
		msg = *e
	}
	return m.s.unavailable(what, errors.New(msg))
}

// Claim takes site for this replica's page: 1 round trip, or 3 when
// the replica holding it is gone (PUBSUB NUMSUB of its inbox says 0).
func (m *RelayMesh) Claim(ctx context.Context, site string) (string, error) {
	if err := m.down("relay routing is"); err != nil {
		return "", err
	}
	k := []string{m.siteKey(site)}
	holder, err := claimScript.Run(ctx, m.s.client, k, m.me, ttlMS(), m.changedChan()).Text()
	if err != nil {
		return "", m.s.unavailable("relay routing is", err)
	}
	if holder == "" {
		return "", nil
	}
	subs, err := m.s.client.PubSubNumSub(ctx, m.inbox(holder)).Result()
	if err != nil {
		return "", m.s.unavailable("relay routing is", err)
	}
	if subs[m.inbox(holder)] > 0 {
		return holder, nil // alive: its page keeps the site
	}
	holder, err = takeoverScript.Run(ctx, m.s.client, k, m.me, ttlMS(), m.changedChan(), holder).Text()
	if err != nil {
		return "", m.s.unavailable("relay routing is", err)
	}
	return holder, nil
}

// Publish stores what this replica's page of site registered and
// refreshes its TTL (1 round trip); nil releases the site.
func (m *RelayMesh) Publish(ctx context.Context, site string, reg []byte) (string, error) {
	if err := m.down("relay routing is"); err != nil {
		return "", err
	}
	k := []string{m.siteKey(site)}
	if reg == nil {
		if err := releaseScript.Run(ctx, m.s.client, k, m.me, m.changedChan()).Err(); err != nil {
			return "", m.s.unavailable("relay routing is", err)
		}
		return "", nil
	}
	lost, err := publishScript.Run(ctx, m.s.client, k, m.me, ttlMS(), m.changedChan(), reg).Text()
	if err != nil {
		return "", m.s.unavailable("relay routing is", err)
	}
	return lost, nil
}

// Read returns who holds each of sites, leaving out a replica that no
// longer listens on its channel (one MGET, then one PUBSUB NUMSUB of the
// holders' channels when some are other replicas).
func (m *RelayMesh) Read(ctx context.Context, sites []string) (map[string]relay.Held, error) {
	if err := m.down("relay routing is"); err != nil {
		return nil, err
	}
	if time.Since(time.Unix(0, m.s.upSince.Load())) < settle {
		// Redis just came back, perhaps empty: let the owners write their
		// entries again before their absence counts.
		return nil, errSettling
	}
	keys := make([]string, len(sites), len(sites)+1)
	for i, s := range sites {
		keys[i] = m.siteKey(s)
	}
	vals, err := m.s.client.MGet(ctx, append(keys, m.epochKey())...).Result()
	if err != nil {
		return nil, m.s.unavailable("relay routing is", err)
	}
	epoch, _ := vals[len(sites)].(string)
	if m.settling(ctx, epoch) {
		return nil, errSettling
	}
	vals = vals[:len(sites)]
	out := make(map[string]relay.Held, len(sites))
	var inboxes []string
	for i, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue
		}
		owner, reg, _ := strings.Cut(str, "\n")
		out[sites[i]] = relay.Held{Owner: owner, Reg: []byte(reg)}
		if owner != m.me && !slices.Contains(inboxes, m.inbox(owner)) {
			inboxes = append(inboxes, m.inbox(owner))
		}
	}
	if len(inboxes) == 0 {
		return out, nil
	}
	// A replica killed drops its subscription at once (Redis sees the
	// connection close): its pages are gone before their entries expire.
	subs, err := m.s.client.PubSubNumSub(ctx, inboxes...).Result()
	if err != nil {
		return nil, m.s.unavailable("relay routing is", err)
	}
	for site, h := range out {
		if h.Owner != m.me && subs[m.inbox(h.Owner)] == 0 {
			delete(out, site)
			m.ownerGone(h.Owner)
		}
	}
	return out, nil
}

// settling reports whether Redis lost the entries since the last read
// (restarted empty, or flushed), from the epoch entry the read found
// (seen; "" when there is none), and for settle after that: the owners
// write their entries again within a second, and until then their absence
// says nothing. The monitor's ping alone cannot tell: a replica whose
// pings straddle a short restart never sees Redis down, and a read that
// go-redis retried while Redis was down succeeds on the empty one. The
// first replica to find no epoch writes one; the first read adopts what it
// finds.
func (m *RelayMesh) settling(ctx context.Context, seen string) bool {
	m.epochMu.Lock()
	defer m.epochMu.Unlock()
	if seen == "" {
		mine := rand.Text()
		ok, err := m.s.client.SetNX(ctx, m.epochKey(), mine, 0).Result()
		switch {
		case err != nil:
			return true // read again at the next round
		case ok:
			seen = mine
		default: // another replica wrote one meanwhile
			if seen, err = m.s.client.Get(ctx, m.epochKey()).Result(); err != nil {
				return true
			}
		}
	}
	if m.epoch != "" && m.epoch != seen {
		m.settleUntil = time.Now().Add(settle)
	}
	m.epoch = seen
	return time.Now().Before(m.settleUntil)
}

// ownerGone ends the calls forwarded to owner that are still waiting:
// it died with them running, no answer will come.
func (m *RelayMesh) ownerGone(owner string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, f := range m.pending {
		if f.owner == owner {
			close(f.gone)
			delete(m.pending, id)
		}
	}
}

// message is what replicas' inboxes carry.
type message struct {
	T    string          `json:"t"` // call | reply | cancel
	ID   string          `json:"id"`
	From string          `json:"from,omitempty"`
	Body json.RawMessage `json:"b,omitempty"`
}

// Forward publishes call to owner's inbox and waits for the answer in
// this replica's inbox, or the end of ctx: then owner is told to cancel.
func (m *RelayMesh) Forward(ctx context.Context, owner string, call []byte) ([]byte, error) {
	if err := m.down("relay calls to other replicas are"); err != nil {
		return nil, err
	}
	id := strconv.FormatUint(m.seq.Add(1), 36)
	f := forwarded{owner: owner, answer: make(chan []byte, 1), gone: make(chan struct{})}
	ch := f.answer
	m.mu.Lock()
	m.pending[id] = f
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.pending, id)
		m.mu.Unlock()
	}()
	msg, _ := json.Marshal(message{T: "call", ID: id, From: m.me, Body: call})
	n, err := m.s.client.Publish(ctx, m.inbox(owner), msg).Result()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, m.s.unavailable("relay calls to other replicas are", err)
	case n == 0:
		return nil, relay.ErrGone
	}
	select {
	case b := <-ch:
		return b, nil
	case <-f.gone: // died with the call running
		return nil, relay.ErrGone
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The owner runs the call under the same deadline: it
			// times out there too, and tells the page so.
			return nil, ctx.Err()
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultTimeout)
		defer cancel()
		msg, _ := json.Marshal(message{T: "cancel", ID: id, From: m.me})
		_ = m.s.client.Publish(cctx, m.inbox(owner), msg).Err()
		return nil, ctx.Err()
	}
}

// Serve listens on this replica's inbox and the changed channel until
// ctx ends: forwarded calls run with serve (each in its own goroutine,
// at most maxServed at once), answers go to the calls waiting in
// Forward. go-redis reconnects and subscribes again by itself when Redis
// comes back.
func (m *RelayMesh) Serve(ctx context.Context, serve func(ctx context.Context, call []byte) []byte, changed func()) {
	var wg sync.WaitGroup
	defer wg.Wait() // after the subscription is closed (defers run last first)
	ps := m.s.client.Subscribe(ctx, m.inbox(m.me), m.changedChan())
	defer ps.Close()
	ch := ps.Channel(redis.WithChannelSize(256))
	var mu sync.Mutex
	running := map[string]context.CancelFunc{}
	slots := make(chan struct{}, maxServed)
	for {
		var msg *redis.Message
		var ok bool
		select {
		case <-ctx.Done():
			return
		case <-m.s.closed:
			return
		case msg, ok = <-ch:
			if !ok {
				return
			}
		}
		if msg.Channel == m.changedChan() {
			changed()
			continue
		}
		var in message
		if json.Unmarshal([]byte(msg.Payload), &in) != nil {
			continue
		}
		switch in.T {
		case "reply":
			m.mu.Lock()
			w, ok := m.pending[in.ID]
			m.mu.Unlock()
			if ok {
				select {
				case w.answer <- in.Body:
				default:
				}
			}
		case "cancel":
			mu.Lock()
			if c := running[in.From+"|"+in.ID]; c != nil {
				c()
			}
			mu.Unlock()
		case "call":
			select {
			case slots <- struct{}{}:
			default:
				m.reply(ctx, in, []byte(`{"kind":"crash","msg":"failed: the replica holding the page runs too many forwarded calls"}`))
				continue
			}
			key := in.From + "|" + in.ID
			cctx, cancel := context.WithCancel(ctx)
			mu.Lock()
			running[key] = cancel
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				out := serve(cctx, in.Body)
				mu.Lock()
				delete(running, key)
				mu.Unlock()
				cancel()
				m.reply(ctx, in, out)
			}()
		}
	}
}

// replyPatience bounds how long an answer waits for its forwarder's
// inbox to have a listener again.
const replyPatience = 5 * time.Second

// reply publishes the answer of the forwarded call in to the inbox of
// the replica that forwarded it. When nobody receives it (that replica's
// subscription is not back yet after Redis came back: the call reached
// this replica first), it is published again, 10 ms later and doubling
// up to 500 ms, for up to replyPatience: a dropped answer would hold the
// call until its whole timeout.
func (m *RelayMesh) reply(ctx context.Context, in message, body []byte) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replyPatience)
	defer cancel()
	msg, _ := json.Marshal(message{T: "reply", ID: in.ID, Body: body})
	again := &backoff.ExponentialBackOff{InitialInterval: 10 * time.Millisecond, Multiplier: 2, MaxInterval: 500 * time.Millisecond}
	again.Reset()
	for {
		n, err := m.s.client.Publish(rctx, m.inbox(in.From), msg).Result()
		if err == nil && n > 0 {
			return
		}
		select {
		case <-rctx.Done():
			return
		case <-m.s.closed:
			return
		case <-time.After(again.NextBackOff()):
		}
	}
}
