// Body limits: a remote upstream's answers bounded by limits.max_message,
// per JSON answer or per event of an event stream, and the mark that tells
// the call whose answer it was.

package upstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// limitBody bounds a remote upstream's answers to max bytes
// (limits.max_message): a JSON answer longer than that, or one event of
// an event stream, fails its request, and is not read into memory. The
// call whose request it was learns why (tooLongMark).
type limitBody struct {
	rt  http.RoundTripper
	max int64
}

func (l *limitBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	mark, _ := req.Context().Value(tooLongKey{}).(*atomic.Bool)
	resp.Body = &limitedBody{rc: resp.Body, left: l.max, max: l.max, events: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), mark: mark}
	return resp, nil
}

// tooLongKey marks a call's context: its request's answer was longer than
// limits.max_message.
type tooLongKey struct{}

// tooLongMark is ctx with a mark, and the mark.
func tooLongMark(ctx context.Context) (context.Context, *atomic.Bool) {
	m := new(atomic.Bool)
	return context.WithValue(ctx, tooLongKey{}, m), m
}

type limitedBody struct {
	rc     io.ReadCloser
	left   int64 // bytes the current answer (or event) may still have
	max    int64
	events bool // an event stream: the limit is per event
	nl     bool // the last byte read was a newline (events)
	mark   *atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if !b.events && int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if b.events {
		// An event ends at an empty line.
		for _, c := range p[:n] {
			switch {
			case c == '\n' && b.nl:
				b.left = b.max
			case c == '\n':
				b.nl = true
			case c != '\r':
				b.nl = false
			}
			b.left--
			if b.left < 0 {
				return b.tooLong()
			}
		}
		return n, err
	}
	b.left -= int64(n)
	if b.left < 0 {
		return b.tooLong()
	}
	return n, err
}

func (b *limitedBody) tooLong() (int, error) {
	if b.mark != nil {
		b.mark.Store(true)
	}
	return 0, errTooLong
}

func (b *limitedBody) Close() error { return b.rc.Close() }

var errTooLong = errors.New("the answer is longer than limits.max_message")
