package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/time/rate"

	"github.com/wasmgate/wasmgate/config"
)

// Close codes the gateway sends (docs/relay-protocol.md).
const (
	closeAuthFailed      websocket.StatusCode = 4001 // wrong proof or token, or a replayed handshake
	closeAuthTimeout     websocket.StatusCode = 4002 // not authenticated within auth_timeout
	closeSiteRemoved     websocket.StatusCode = 4004 // a reload removed the site
	closeSettingsChanged websocket.StatusCode = 4005 // a reload changed the protocol or dropped the origin
	closeBusy            websocket.StatusCode = 4008 // another page serves the site
	closeProtocol        websocket.StatusCode = 4400 // a frame broke the protocol
)

// writeTimeout bounds one frame written to a page; a page that does not
// read for this long is dead.
const writeTimeout = 10 * time.Second

// bridge is one WebSocket connection from a page: first a handshake,
// then, once authenticated and claimed, the site's page.
type bridge struct {
	r      *Relay
	st     *siteState
	conn   *websocket.Conn
	origin string
	remote string
	legacy bool
	log    *slog.Logger

	mu       sync.Mutex
	authed   bool // the handshake succeeded
	timedOut bool // auth_timeout passed first
	gone     bool // no new calls; done is closed
	why      string
	closing  bool // a close of conn has started
	nextID   uint64
	pending  map[uint64]chan reply

	done    chan struct{}
	closers sync.WaitGroup

	registers *rate.Limiter // the page's register frames (max_registrations_per_minute)

	// slot is the unauthenticated slot the connection holds until it
	// authenticates or ends (Relay.admit); releaseSlot gives it back once.
	slot     func()
	slotOnce sync.Once
	// raw is the network connection under conn (nil in tests that build
	// a bridge without one), for cutAfterGrace.
	raw net.Conn
}

// releaseSlot gives the connection's unauthenticated slot back, once.
func (b *bridge) releaseSlot() {
	b.slotOnce.Do(func() {
		if b.slot != nil {
			b.slot()
		}
	})
}

// reply is a page's answer to a call: a result object, or the error its
// handler threw.
type reply struct {
	result json.RawMessage
	err    *PageError
}

func newBridge(r *Relay, st *siteState, c *websocket.Conn, origin, remote string, legacy bool) *bridge {
	conf, _ := st.settings()
	perMinute := max(conf.MaxRegistrations, 1)
	return &bridge{
		registers: rate.NewLimiter(rate.Limit(float64(perMinute)/60), max(1, perMinute/10)),
		r:         r, st: st, conn: c, origin: origin, remote: remote, legacy: legacy,
		log:     r.log.With("site", st.name, "remote", remote),
		pending: map[uint64]chan reply{},
		done:    make(chan struct{}),
	}
}

// run is the whole life of the connection: the handshake within
// auth_timeout, then frames until it ends. It returns when the
// connection is closed and every goroutine it started has finished.
func (b *bridge) run() {
	conf, token := b.st.settings()
	fired := make(chan struct{})
	timer := time.AfterFunc(time.Duration(conf.AuthTimeout), func() {
		defer close(fired)
		b.authExpired()
	})
	var outcome string
	var err error
	if b.legacy {
		outcome, err = b.legacyHandshake(conf, token)
	} else {
		outcome, err = b.handshake(conf, token)
	}
	if !timer.Stop() {
		<-fired
	}
	b.mu.Lock()
	if b.timedOut && outcome != "ok" {
		outcome, err = "timeout", fmt.Errorf("not authenticated within %s (%s.auth_timeout)", conf.AuthTimeout, conf.Key)
	}
	b.mu.Unlock()
	b.r.handshake(conf.Name, outcome)
	if outcome != "ok" {
		b.st.refused(outcome, b.origin, b.remote, err)
		args := []any{"outcome", outcome, "origin", b.origin, "error", err}
		switch outcome {
		case "bad_proof", "no_token", "replay": // a guess at the token
			args = append(args, "failures_from_client", b.r.failed(conf.Name, b.remote, time.Now()))
		}
		b.r.refusals.Warn(b.log, "relay: connection refused", args...)
		b.cutAfterGrace()
		b.finish("handshake failed")
		b.releaseSlot()
		return
	}
	b.releaseSlot()
	b.conn.SetReadLimit(int64(conf.MaxFrame))
	b.r.m.RelayBridges.WithLabelValues(conf.Name).Set(1)
	b.log.Info("relay: page connected", "origin", b.origin, "protocol", conf.Protocol)

	why := b.readLoop()

	hadSet, released := b.st.release(b)
	if released {
		b.r.meshPublish(b.st)
	}
	b.r.m.RelayBridges.WithLabelValues(conf.Name).Set(0)
	b.finish(why)
	b.releaseSlot()
	if hadSet {
		b.r.changed(b.st.name)
	}
	b.log.Info("relay: page disconnected", "reason", why)
}

// authExpired closes a connection still unauthenticated at auth_timeout.
func (b *bridge) authExpired() {
	b.mu.Lock()
	if b.authed {
		b.mu.Unlock()
		return
	}
	b.timedOut = true
	b.mu.Unlock()
	b.shutdown(closeAuthTimeout, "authentication timed out")
	b.cutAfterGrace()
}

// preAuthCloseGrace is how long a connection refused before it
// authenticated may take to answer the close, instead of the close
// handshake's 5 seconds: a client that stalls does not keep its slot.
const preAuthCloseGrace = 500 * time.Millisecond

// cutAfterGrace cuts the connection preAuthCloseGrace from now, whatever
// the close handshake is doing (finish waits for it): the WebSocket's own
// Close would wait for the peer up to 5 seconds more, so the network
// connection under it is closed.
func (b *bridge) cutAfterGrace() {
	b.closers.Add(1)
	go func() {
		defer b.closers.Done()
		t := time.NewTimer(preAuthCloseGrace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-b.r.ctx.Done():
		}
		if b.raw != nil {
			_ = b.raw.Close()
		}
	}()
}

// authenticate marks the handshake done; false if auth_timeout won.
func (b *bridge) authenticate() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timedOut || b.gone {
		return false
	}
	b.authed = true
	return true
}

// fail ends the bridge for calls: pending ones fail at once with why.
func (b *bridge) fail(why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone {
		return
	}
	b.gone, b.why = true, why
	close(b.done)
}

// whyGone is why the bridge went away.
func (b *bridge) whyGone() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.why
}

// shutdown fails pending calls and closes the connection with code and
// reason, without waiting for the page (run waits).
func (b *bridge) shutdown(code websocket.StatusCode, reason string) {
	b.fail(fmt.Sprintf("closed by the gateway: %d %s", code, reason))
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closing {
		return
	}
	b.closing = true
	b.closers.Add(1)
	go func() {
		defer b.closers.Done()
		_ = b.conn.Close(code, truncateReason(reason))
	}()
}

// finish ends the connection from run: pending calls fail with why, the
// connection is cut unless a close is under way, which it waits for.
func (b *bridge) finish(why string) {
	b.fail(why)
	b.mu.Lock()
	started := b.closing
	b.closing = true
	b.mu.Unlock()
	if !started {
		_ = b.conn.CloseNow()
	}
	b.closers.Wait()
}

// reject counts a refused frame.
func (b *bridge) reject(reason string) {
	b.r.m.RelayFramesRejected.WithLabelValues(b.st.name, reason).Inc()
}

// send writes one frame.
func (b *bridge) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	ctx, cancel := context.WithTimeout(b.r.ctx, writeTimeout)
	defer cancel()
	return b.conn.Write(ctx, websocket.MessageText, data)
}

// readFrame reads one text frame. On failure it returns the handshake
// outcome it amounts to and has counted and closed what it must.
func (b *bridge) readFrame() ([]byte, string, error) {
	typ, data, err := b.conn.Read(b.r.ctx)
	if err != nil {
		if errors.Is(err, websocket.ErrMessageTooBig) {
			conf, token := b.st.settings()
			b.reject("too_large")
			b.mu.Lock()
			authed := b.authed
			b.mu.Unlock()
			if !authed {
				limit := config.ByteSize(preAuthLimit(conf, token))
				b.fail(fmt.Sprintf("the page sent a frame larger than the %s allowed before authentication", limit))
				return nil, "too_large", fmt.Errorf("frame larger than the %s allowed before authentication", limit)
			}
			b.fail(fmt.Sprintf("the page sent a frame larger than %s.max_frame (%s)", conf.Key, conf.MaxFrame))
			return nil, "too_large", fmt.Errorf("frame larger than %s.max_frame (%s)", conf.Key, conf.MaxFrame)
		}
		return nil, "closed", err
	}
	if typ != websocket.MessageText {
		b.reject("binary")
		b.shutdown(websocket.StatusUnsupportedData, "binary frames are not part of the protocol")
		return nil, "malformed", errors.New("binary frame")
	}
	return data, "", nil
}

// handshake runs the wasmgate handshake (docs/relay-protocol.md) and,
// when the page proves the token, claims the site for it.
func (b *bridge) handshake(conf SiteConfig, token []byte) (string, error) {
	nonce := newNonce()
	if err := b.send(helloFrame{Type: typeHello, Protocol: ProtocolVersion, Site: conf.Name, Nonce: nonce}); err != nil {
		return "closed", err
	}
	data, outcome, err := b.readFrame()
	if err != nil {
		return outcome, err
	}
	f, err := decodeFrame(data)
	if err != nil {
		b.reject("malformed")
		b.shutdown(closeProtocol, err.Error())
		return "malformed", err
	}
	if f.Type != typeAuth {
		b.reject("unexpected")
		b.shutdown(closeProtocol, "expected an auth frame")
		return "malformed", fmt.Errorf("%s frame before auth", f.Type)
	}
	if !validNonce(f.Nonce) {
		b.reject("malformed")
		b.shutdown(closeProtocol, "the page's nonce must be base64url of at least 16 random bytes")
		return "malformed", errors.New("short or invalid page nonce")
	}
	if b.st.nonces.add(f.Nonce, time.Now()) {
		b.shutdown(closeAuthFailed, "authentication failed")
		return "replay", errors.New("the page's nonce was used before: a replayed handshake")
	}
	if !proofEqual(f.Proof, proof(token, pageLabel, conf.Name, nonce, f.Nonce)) {
		b.shutdown(closeAuthFailed, "authentication failed")
		return "bad_proof", errors.New("wrong proof: the page does not know the site's token")
	}
	if !b.authenticate() {
		return "timeout", errors.New("auth_timeout passed")
	}
	if holder := b.meshClaim(); holder != "" {
		b.shutdown(closeBusy, fmt.Sprintf("site %s already has a connected page (on replica %s)", conf.Name, holder))
		return "busy", fmt.Errorf("a page on replica %s serves the site", holder)
	}
	if !b.st.claim(b) {
		b.shutdown(closeBusy, fmt.Sprintf("site %s already has a connected page", conf.Name))
		return "busy", errors.New("another page serves the site")
	}
	b.r.meshPublish(b.st)
	err = b.send(welcomeFrame{Type: typeWelcome, Proof: proof(token, gatewayLabel, conf.Name, nonce, f.Nonce),
		MaxFrame: int64(conf.MaxFrame), CallTimeoutMS: time.Duration(conf.CallTimeout).Milliseconds()})
	if err != nil {
		b.st.release(b)
		return "closed", err
	}
	return "ok", nil
}

// readLoop handles frames until the connection ends, and says why.
func (b *bridge) readLoop() string {
	for {
		data, _, err := b.readFrame()
		if err != nil {
			if w := b.whyGone(); w != "" {
				return w
			}
			return closeWhy(err)
		}
		if b.legacy {
			if why := b.legacyFrame(data); why != "" {
				return why
			}
			continue
		}
		f, err := decodeFrame(data)
		if err != nil {
			b.reject("malformed")
			b.shutdown(closeProtocol, err.Error())
			return "protocol error: " + err.Error()
		}
		switch f.Type {
		case typeResult:
			b.deliver(f.CallID, reply{result: f.Result, err: f.Error})
		case typeRegister:
			b.register(f)
		default:
			b.reject("unexpected")
			b.shutdown(closeProtocol, "unexpected "+f.Type+" frame")
			return "protocol error: unexpected " + f.Type + " frame"
		}
	}
}
