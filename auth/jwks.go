package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/wasmgate/wasmgate/auth/authconfig"
	"github.com/wasmgate/wasmgate/config"
)

const (
	// fetchTimeout bounds one fetch of jwks_url.
	fetchTimeout = 10 * time.Second
	// maxJWKSSize bounds a JWKS document.
	maxJWKSSize = 1 << 20
	// MinRefetch is how long after a fetch of jwks_url a token with an
	// unknown kid may cause another one: a rotated key is picked up within
	// this time, and tokens with made-up kids cannot hammer the server.
	MinRefetch = 30 * time.Second
)

// keySource holds the current JWKS: read once from jwks_file, or fetched
// from jwks_url, refreshed by an owned goroutine and, for unknown kids,
// on demand (rate-limited).
type keySource struct {
	url    string // "" for jwks_file
	client *http.Client
	log    *slog.Logger
	now    func() time.Time

	set atomic.Pointer[keySet]

	mu       sync.Mutex
	last     time.Time     // start of the last fetch, by now()
	inflight chan struct{} // closed when the running fetch ends

	ctx    context.Context // the refresher's; canceled by close
	cancel context.CancelFunc
	done   chan struct{} // closed when the refresher returns
}

type keySet struct {
	set  jwk.Set
	kids []string // sorted, for change logs
}

func newKeySource(ctx context.Context, j JWTConfig, key, file string, opts Options) (*keySource, error) {
	k := &keySource{url: j.JWKSURL, client: checkedRedirects(opts.HTTPClient), log: opts.Logger, now: opts.Now}
	switch {
	case j.JWKSFile != "":
		b, err := os.ReadFile(j.JWKSFile)
		if err != nil {
			return nil, &config.Error{File: file, Key: key + ".jwks_file", Msg: fmt.Sprintf("%q: %v", j.JWKSFile, errors.Unwrap(err))}
		}
		set, err := parseJWKS(b)
		if err != nil {
			return nil, &config.Error{File: file, Key: key + ".jwks_file", Msg: fmt.Sprintf("%q: %v", j.JWKSFile, err)}
		}
		k.install(set)
		return k, nil
	case j.JWKSURL != "":
		k.last = k.now()
		set, err := k.fetch(ctx)
		if err != nil {
			return nil, &config.Error{File: file, Key: key + ".jwks_url", Msg: fmt.Sprintf("fetching %s: %v", j.JWKSURL, err)}
		}
		k.install(set)
		if j.Refresh > 0 {
			k.ctx, k.cancel = context.WithCancel(context.WithoutCancel(ctx))
			k.done = make(chan struct{})
			go k.run(time.Duration(j.Refresh))
		}
		return k, nil
	}
	return nil, &config.Error{File: file, Key: key, Msg: "no keys: set jwks_url or jwks_file"}
}

// maxRedirects bounds the redirects one fetch of jwks_url follows.
const maxRedirects = 5

// checkedRedirects returns a copy of c that applies jwks_url's own rule
// (https, or http to a loopback host; no user info) to every redirect,
// so a JWKS server cannot hand the fetch to a target jwks_url could not
// name. A CheckRedirect c already had still runs after the rule.
func checkedRedirects(c *http.Client) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if err := authconfig.CheckURL(req.URL.String(), true); err != nil {
			return fmt.Errorf("refused a redirect to %s: %w", req.URL.Redacted(), err)
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cc
}

// current returns the key set in use.
func (k *keySource) current() jwk.Set { return k.set.Load().set }

// run refreshes the key set every interval until close.
func (k *keySource) run(every time.Duration) {
	defer close(k.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-k.ctx.Done():
			return
		case <-t.C:
			k.refresh(k.ctx, true)
		}
	}
}

func (k *keySource) close() {
	if k.cancel != nil {
		k.cancel()
		<-k.done
	}
}

// refresh fetches jwks_url again and installs the result; on failure the
// keys already known stay. Unless force, nothing happens within
// MinRefetch of the last fetch. Concurrent callers share one fetch; a
// waiting caller whose ctx ends stops waiting.
func (k *keySource) refresh(ctx context.Context, force bool) {
	if k.url == "" {
		return
	}
	k.mu.Lock()
	if ch := k.inflight; ch != nil {
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		return
	}
	if !force && k.now().Sub(k.last) < MinRefetch {
		k.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	k.inflight, k.last = ch, k.now()
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.inflight = nil
		k.mu.Unlock()
		close(ch)
	}()

	fctx := k.ctx
	if fctx == nil { // no refresher (refresh: 0): bounded by the caller
		fctx = ctx
	}
	set, err := k.fetch(fctx)
	if err != nil {
		if fctx.Err() == nil {
			k.log.Warn("auth: fetching the JWKS failed; the keys already known stay in use", "jwks_url", k.url, "err", err)
		}
		return
	}
	k.install(set)
}

// fetch GETs and parses jwks_url.
func (k *keySource) fetch(ctx context.Context) (jwk.Set, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // the caller names the URL
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %w", err)
	}
	if len(body) > maxJWKSSize {
		return nil, fmt.Errorf("the JWKS is larger than %d bytes", maxJWKSSize)
	}
	return parseJWKS(body)
}

// parseJWKS parses a JWKS document and checks that it holds at least one
// key that can verify signatures (asymmetric, use absent or "sig").
func parseJWKS(b []byte) (jwk.Set, error) {
	set, err := jwk.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	for i := range set.Len() {
		if key, _ := set.Key(i); key.KeyType() != jwa.OctetSeq() && usableForSig(key) {
			return set, nil
		}
	}
	return nil, errors.New("no key in the JWKS can verify signatures (want public RSA, EC or OKP keys)")
}

func usableForSig(key jwk.Key) bool {
	u, ok := key.KeyUsage()
	return !ok || u == "sig"
}

// install makes set the current key set and logs a change of key ids.
func (k *keySource) install(set jwk.Set) {
	var kids []string
	for i := range set.Len() {
		key, _ := set.Key(i)
		if kid, ok := key.KeyID(); ok {
			kids = append(kids, kid)
		}
	}
	slices.Sort(kids)
	old := k.set.Swap(&keySet{set: set, kids: kids})
	switch {
	case old == nil:
		k.log.Debug("auth: JWKS loaded", "keys", set.Len(), "kids", kids)
	case !slices.Equal(old.kids, kids):
		k.log.Info("auth: JWKS keys changed", "jwks_url", k.url, "kids", kids, "previous", old.kids)
	}
}
