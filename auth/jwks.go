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

	"github.com/lestrrat-go/httprc/v3"
	"github.com/lestrrat-go/httprc/v3/errsink"
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
// from jwks_url and refreshed every auth.jwt.refresh by httprc, the
// refresher under jwx's jwk.Cache, and, for unknown kids, on demand
// (rate-limited).
//
// jwk.Cache itself is not used: its Register fixes the transformer to
// jwk.Parse, which would install a set with no key that can verify a
// signature (a misconfigured server's symmetric keys, say) and gives no
// moment to log a change of key ids. jwk.Cache is an httprc.Controller
// with that transformer; keySource is one with transform. httprc has no
// rate-limited refetch either: refresh keeps ours (MinRefetch, one fetch
// shared by concurrent callers).
type keySource struct {
	url string // "" for jwks_file
	log *slog.Logger
	now func() time.Time

	set atomic.Pointer[keySet] // the hot path reads only this

	// jwks_url only.
	ctrl     httprc.Controller
	ctx      context.Context // the controller's; canceled by close
	cancel   context.CancelFunc
	mu       sync.Mutex
	last     time.Time     // start of the last unknown-kid fetch, by now()
	inflight chan struct{} // closed when the running one ends
}

type keySet struct {
	set  jwk.Set
	kids []string // sorted, for change logs
}

func newKeySource(ctx context.Context, j JWTConfig, key, file string, opts Options) (*keySource, error) {
	k := &keySource{url: j.JWKSURL, log: opts.Logger, now: opts.Now}
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
		every := time.Duration(j.Refresh)
		if every <= 0 {
			every = DefaultRefresh
		}
		// The interval is constant (a Cache-Control max-age does not
		// change it), and a failed fetch is tried again after the same
		// interval (httprc's minimum interval is its retry delay).
		res, err := httprc.NewResource[jwk.Set](j.JWKSURL, httprc.TransformFunc[jwk.Set](k.transform),
			httprc.WithHTTPClient(jwksClient{checkedRedirects(opts.HTTPClient)}),
			httprc.WithConstantInterval(every), httprc.WithMinInterval(every))
		if err != nil {
			return nil, &config.Error{File: file, Key: key + ".jwks_url", Msg: err.Error()}
		}
		k.last = k.now()
		if err := res.Sync(ctx); err != nil {
			return nil, &config.Error{File: file, Key: key + ".jwks_url", Msg: fmt.Sprintf("fetching %s: %v", j.JWKSURL, cause(err))}
		}
		k.ctx, k.cancel = context.WithCancel(context.WithoutCancel(ctx))
		client := httprc.NewClient(httprc.WithWorkers(1), httprc.WithErrorSink(errsink.NewFunc(func(_ context.Context, err error) { k.failed(err) })))
		if k.ctrl, err = client.Start(k.ctx); err == nil {
			// Already fetched: the controller's first fetch is one interval away.
			err = k.ctrl.Add(k.ctx, res, httprc.WithWaitReady(false))
		}
		if err != nil {
			k.cancel()
			k.close()
			return nil, &config.Error{File: file, Key: key + ".jwks_url", Msg: fmt.Sprintf("refreshing %s: %v", j.JWKSURL, err)}
		}
		return k, nil
	}
	return nil, &config.Error{File: file, Key: key, Msg: "no keys: set jwks_url or jwks_file"}
}

// maxRedirects bounds the redirects one fetch of jwks_url follows.
const maxRedirects = 5

// checkedRedirects returns a copy of c, with a timeout of fetchTimeout at
// most, that applies jwks_url's own rule (https, or http to a loopback
// host; no user info) to every redirect, so a JWKS server cannot hand
// the fetch to a target jwks_url could not name. A CheckRedirect c
// already had still runs after the rule.
func checkedRedirects(c *http.Client) *http.Client {
	cc := *c
	if cc.Timeout == 0 || cc.Timeout > fetchTimeout {
		cc.Timeout = fetchTimeout
	}
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

// close stops the refresher and waits for its goroutines.
func (k *keySource) close() {
	if k.ctrl != nil {
		k.cancel()
		_ = k.ctrl.ShutdownContext(context.Background()) // only fails when its context ends
	}
}

// refresh fetches jwks_url again for a token with an unknown kid; on
// failure the keys already known stay. Nothing happens within MinRefetch
// of the last such fetch. Concurrent callers share one fetch; a waiting
// caller whose ctx ends stops waiting.
func (k *keySource) refresh(ctx context.Context) {
	if k.ctrl == nil {
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
	if k.now().Sub(k.last) < MinRefetch {
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
	if err := k.ctrl.Refresh(k.ctx, k.url); err != nil {
		k.failed(err)
	}
}

// failed logs a failed fetch (the controller's error sink), unless the
// source is closing.
func (k *keySource) failed(err error) {
	if k.ctx.Err() == nil {
		k.log.Warn("auth: fetching the JWKS failed; the keys already known stay in use", "jwks_url", k.url, "err", cause(err))
	}
}

// fetchError is why a fetch of jwks_url failed, without httprc's
// wrapping around it.
type fetchError struct{ err error }

func (e fetchError) Error() string { return e.err.Error() }
func (e fetchError) Unwrap() error { return e.err }

// cause is the fetchError in err, or err.
func cause(err error) error {
	if fe := (fetchError{}); errors.As(err, &fe) {
		return fe.err
	}
	return err
}

// jwksClient is the httprc.HTTPClient of jwks_url: a response other
// than 200 is an error that names its status.
type jwksClient struct{ c *http.Client }

func (c jwksClient) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := c.c.Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // the caller names the URL
		}
		return nil, fetchError{err}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fetchError{fmt.Errorf("HTTP status %s", resp.Status)}
	}
	return resp, nil
}

// transform reads and checks a fetched JWKS and installs it; on an error
// httprc keeps the set it had.
func (k *keySource) transform(_ context.Context, resp *http.Response) (jwk.Set, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSSize+1))
	if err != nil {
		return nil, fetchError{fmt.Errorf("reading the response: %w", err)}
	}
	if len(body) > maxJWKSSize {
		return nil, fetchError{fmt.Errorf("the JWKS is larger than %d bytes", maxJWKSSize)}
	}
	set, err := parseJWKS(body)
	if err != nil {
		return nil, fetchError{err}
	}
	k.install(set)
	return set, nil
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
