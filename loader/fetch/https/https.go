// Package https fetches plugin modules by URL: a source https://HOST/PATH
// is downloaded with one GET (redirects followed, never from https down to
// http, and each connection checked as fetch.Transport says), bounded in
// time and size (fetch.Options). Plain http:// is allowed only to a
// loopback host (tests, a local mirror). A download its sha256 pin
// refuses is not cached.
//
// Downloads are cached by the SHA-256 of their bytes (see fetch.Cache): a
// source pinned by sha256 whose module is cached needs no network at all;
// an unpinned source is downloaded on every load, since only the bytes
// tell whether it changed.
package https

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// maxRedirects bounds the redirects of one download.
const maxRedirects = 10

// Fetcher downloads modules over https.
type Fetcher struct {
	opts  fetch.Options
	cache fetch.Cache
}

// New returns a Fetcher with opts (see fetch.Options).
func New(opts fetch.Options) *Fetcher {
	opts = opts.Defaults()
	return &Fetcher{opts: opts, cache: fetch.NewCache(opts.CacheDir)}
}

// checkRedirect bounds the redirects of a download and refuses one from
// https down to http; where a redirect may connect is the transport's
// (fetch.Transport).
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "https" && via[0].URL.Scheme == "https" {
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Redacted())
	}
	return nil
}

// Check reports whether source is a well-formed https:// URL (or http://
// to a loopback host).
func (f *Fetcher) Check(source string) error {
	_, err := Parse(source)
	return err
}

// Parse parses an https:// URL, or an http:// URL of a loopback host.
func Parse(source string) (*url.URL, error) {
	u, err := url.Parse(source)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("scheme %q: want https://HOST/PATH", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("no host; want https://HOST/PATH")
	case u.User != nil:
		return nil, errors.New("credentials in the URL are not supported")
	case u.Scheme == "http" && !fetch.Loopback(u.Host):
		return nil, errors.New("plain http is allowed only to a loopback host; use https://")
	}
	return u, nil
}

// Fetch downloads the module of spec.Source, or takes it from the cache
// when spec pins a cached module.
func (f *Fetcher) Fetch(ctx context.Context, spec fetch.Spec) (fetch.Module, error) {
	u, err := Parse(spec.Source)
	if err != nil {
		return fetch.Module{}, fmt.Errorf("%s (%s.path): %s: %w", spec.Owner(), spec.Key, spec.Source, err)
	}
	if data, ok := f.cache.Module(spec.SHA256); ok {
		if err := f.verify(ctx, spec, data, spec.SHA256); err != nil {
			return fetch.Module{}, err
		}
		return fetch.Module{Data: data, SHA256: spec.SHA256}, nil
	}
	start := time.Now()
	data, err := f.get(ctx, u, f.opts.MaxSize, fetch.TooLarge)
	if err != nil {
		return fetch.Module{}, fmt.Errorf("%s (%s): %s: %w", spec.Owner(), spec.Key, spec.Source, err)
	}
	sum := fetch.Sum(data)
	f.opts.Logger.Info("downloaded plugin module", "plugin", spec.Plugin, "source", spec.Source,
		"sha256", sum, "bytes", len(data), "duration", time.Since(start).Round(time.Millisecond))
	if err := fetch.CheckPin(spec, sum); err != nil {
		return fetch.Module{}, err // refused: nothing is cached
	}
	bundle, err := fetch.CheckSignature(ctx, spec, data, spec.Source+fetch.BundleSuffix, f.Download)
	if err != nil {
		return fetch.Module{}, err // refused: nothing is cached
	}
	if err := f.cache.PutModule(data, sum); err != nil {
		f.opts.Logger.Warn("cannot cache module", "plugin", spec.Plugin, "source", spec.Source, "error", err)
	} else if err := f.cache.PutBundle(spec, sum, bundle); err != nil {
		f.opts.Logger.Warn("cannot cache signature bundle", "plugin", spec.Plugin, "source", spec.Source, "error", err)
	}
	return fetch.Module{Data: data, SHA256: sum}, nil
}

// verify checks the signature of a cached module: against the bundle
// cached with it under the same trust when there is one (no network),
// else against the bundle fetched again.
func (f *Fetcher) verify(ctx context.Context, spec fetch.Spec, data []byte, sum string) error {
	if spec.Verify == nil || f.cache.Verified(spec, sum, data) {
		return nil
	}
	bundle, err := fetch.CheckSignature(ctx, spec, data, spec.Source+fetch.BundleSuffix, f.Download)
	if err != nil {
		return err
	}
	if err := f.cache.PutBundle(spec, sum, bundle); err != nil {
		f.opts.Logger.Warn("cannot cache signature bundle", "plugin", spec.Plugin, "source", spec.Source, "error", err)
	}
	return nil
}

// Download gets source (an https:// URL, or http:// to a loopback host)
// with the rules of module downloads, at most max bytes: a Sigstore
// bundle (fetch.Download).
func (f *Fetcher) Download(ctx context.Context, source string, max int64) ([]byte, error) {
	u, err := Parse(source)
	if err != nil {
		return nil, err
	}
	return f.get(ctx, u, max, func(max int64) error {
		return fmt.Errorf("larger than the %s limit of a Sigstore bundle", config.ByteSize(max))
	})
}

// get downloads u within the timeout and the size limit max; tooLarge is
// the error of a larger body.
func (f *Fetcher) get(ctx context.Context, u *url.URL, max int64, tooLarge func(int64) error) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "wasmgate")
	rt, closeIdle, err := fetch.Transport(u.Host, f.opts)
	if err != nil {
		return nil, err
	}
	defer closeIdle()
	client := &http.Client{Transport: rt, CheckRedirect: checkRedirect}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		return nil, fmt.Errorf("GET: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET: %s", resp.Status)
	}
	if resp.ContentLength > max {
		return nil, fmt.Errorf("GET: %d bytes: %w", resp.ContentLength, tooLarge(max))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err == nil && int64(len(data)) > max {
		err = tooLarge(max)
	}
	if err != nil {
		return nil, fmt.Errorf("GET: %w", err)
	}
	return data, nil
}
