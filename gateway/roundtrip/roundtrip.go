// Package roundtrip bridges a plugin's requests to its client (sampling,
// elicitation, roots) to clients of the 2026-07-28 revision, which has no
// server-initiated requests: the call answers input_required with the
// request and a signed requestState, and the client retries the call with
// the answer (SEP-2322, multi round-trip requests).
//
// The gateway does not keep the call waiting between the rounds: it runs
// the call again from the start on the retry, and the plugin's requests
// are answered, in the order it makes them, from the answers the client
// gave so far (the state carries them, signed). A request beyond those
// ends that run and is sent to the client. So a plugin that asks twice
// runs three times; what it does before its last question (HTTP requests,
// KV writes) it does on every run (docs/plugins.md).
//
// An upstream server's call cannot run again (package upstream): it is
// parked instead, and the state names it (Replay.Park); the retry resumes
// that call with the client's answer (Replay.Resume), in the same
// process.
//
// The state is an HMAC-SHA256-signed token binding the principal, the
// tool, the digest of the canonical arguments, an expiry and a nonce; a
// forged, expired, foreign or already used state is refused.
package roundtrip

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// ErrNeedInput is the error of a host function whose request the client
// has not answered yet: the run ends, the client is asked.
var ErrNeedInput = errors.New("the client is asked for input; the call runs again with its answer")

// MaxRounds bounds the answers one call may collect.
const MaxRounds = 10

// MaxStateBytes bounds a requestState (the answers it carries).
const MaxStateBytes = 1 << 20

// IDPrefix names the input requests the gateway sends: "wasmgate-0",
// "wasmgate-1", ... in the order the plugin asked.
const IDPrefix = "wasmgate-"

// Replay is one run of a call for a client that answers input_required.
// Safe for use from the goroutine running the call only.
type Replay struct {
	answers []json.RawMessage
	asked   []string // digests of the requests the answers answer
	next    int
	pending *mcp.InputRequest
	digest  string
	err     error
	park    string // the parked call the state continues (an upstream's)
}

type replayKey struct{}

// With is ctx carrying r, for the host functions of the call.
func With(ctx context.Context, r *Replay) context.Context {
	return context.WithValue(ctx, replayKey{}, r)
}

// From is the Replay of ctx's call, or nil (a client that takes
// server-initiated requests).
func From(ctx context.Context) *Replay {
	r, _ := ctx.Value(replayKey{}).(*Replay)
	return r
}

// Ask is a host function's request: the client's answer when an earlier
// round has it, else an error wrapping ErrNeedInput (the request is kept
// for the input_required result). A request that differs from the one the
// earlier run made at the same point is refused: the plugin must ask the
// same questions in the same order on every run.
func (r *Replay) Ask(req mcp.InputRequest) (json.RawMessage, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	sum := sha256.Sum256(b)
	d := hex.EncodeToString(sum[:16])
	i := r.next
	r.next++
	if i < len(r.answers) {
		if r.asked[i] != d {
			r.err = fmt.Errorf("the plugin's request %d (%s) differs from the one the client answered: a plugin must ask the same questions in the same order when the call runs again", i+1, req.Method)
			return nil, r.err
		}
		return r.answers[i], nil
	}
	if i >= MaxRounds {
		r.err = fmt.Errorf("the plugin asked the client more than %d times in one call", MaxRounds)
		return nil, r.err
	}
	r.pending, r.digest = &req, d
	return nil, ErrNeedInput
}

// Skip takes the next answer when it is the answer to req (asked in an
// earlier run of the call by the gateway itself, and no longer needed:
// a flow approval remembered since), so the source's requests keep
// their places; otherwise it does nothing.
func (r *Replay) Skip(req mcp.InputRequest) {
	b, err := json.Marshal(req)
	if err != nil || r.next >= len(r.answers) {
		return
	}
	sum := sha256.Sum256(b)
	if r.asked[r.next] == hex.EncodeToString(sum[:16]) {
		r.next++
	}
}

// Pending is the request to send the client, once the run has ended; nil
// when the plugin asked nothing unanswered.
func (r *Replay) Pending() *mcp.InputRequest { return r.pending }

// Err is why a request of the run was refused (a plugin that asked
// differently on a run again, or too often), or nil.
func (r *Replay) Err() error { return r.err }

// Park records that the call is kept waiting as id (a source that cannot
// run a call again, such as an upstream server): the state sealed for
// the pending request names it, and the retry resumes that call instead
// of running it again.
func (r *Replay) Park(id string) { r.park = id }

// Parked is the id of the waiting call the opened state continues; ""
// when the call runs again from the start.
func (r *Replay) Parked() string { return r.park }

// Resume is the client's answer to the request a parked call is waiting
// on (the last answer the state opened with); the next Ask is the next
// request, not one of the earlier rounds'.
func (r *Replay) Resume() json.RawMessage {
	r.next = len(r.answers)
	if r.next == 0 {
		return nil
	}
	return r.answers[r.next-1]
}

// Rounds is the number of answers the run started with.
func (r *Replay) Rounds() int { return len(r.answers) }

// Binding is what a state is valid for.
type Binding struct {
	Principal string
	Tool      string
	Args      []byte // the canonical arguments
}

func (b Binding) digest() string {
	h := sha256.New()
	for _, s := range []string{b.Principal, b.Tool} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	h.Write(b.Args)
	return hex.EncodeToString(h.Sum(nil))
}

// state is what a requestState token carries.
type state struct {
	V       int               `json:"v"`
	Bind    string            `json:"b"`
	Exp     int64             `json:"e"` // unix seconds
	Nonce   string            `json:"n"`
	Asked   []string          `json:"q"`
	Answers []json.RawMessage `json:"a"`
	// Park names a call kept waiting in the process that sealed the
	// state (an upstream call, which cannot run again), if any.
	Park string `json:"p,omitempty"`
}

// Signer seals and opens request states. Its key and TTL change with the
// config (Set); the nonces of opened states are kept until they expire.
type Signer struct {
	mu     sync.Mutex
	own    []byte // the process's random key, used without a configured one
	key    []byte
	ttl    time.Duration
	used   map[string]int64 // nonce -> expiry (unix seconds)
	max    int
	now    func() time.Time
	shared Spender // nil: the nonces are this process's alone
}

// Spender records a nonce as used where every replica sees it
// (state.backend redis: state.Store).
type Spender interface {
	SpendOnce(ctx context.Context, id string, until time.Time) (fresh bool, err error)
}

// Share makes every opened state's nonce spent in sp too, so that a
// state answered on one replica is refused on the others (nil: in this
// process only).
func (s *Signer) Share(sp Spender) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shared = sp
}

// DefaultTTL is how long a client has to answer.
const DefaultTTL = 5 * time.Minute

// NewSigner returns a Signer with a random key (for one process) and
// DefaultTTL, remembering up to maxUsed nonces (0: 100,000).
func NewSigner(maxUsed int) *Signer {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	if maxUsed <= 0 {
		maxUsed = 100_000
	}
	return &Signer{own: key, key: key, ttl: DefaultTTL, used: map[string]int64{}, max: maxUsed, now: time.Now}
}

// TTL is how long a client has to answer (server.request_state.ttl).
func (s *Signer) TTL() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ttl
}

// Set changes the key (nil: the process's own random key) and the TTL (0
// keeps it). States sealed with another key are refused afterwards.
func (s *Signer) Set(key []byte, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = s.own
	if key != nil {
		s.key = append([]byte(nil), key...)
	}
	if ttl > 0 {
		s.ttl = ttl
	}
}

// Seal is the requestState continuing r for b: the answers so far, and
// the digest of the pending request.
func (s *Signer) Seal(b Binding, r *Replay) (string, error) {
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	s.mu.Lock()
	key, ttl := s.key, s.ttl
	s.mu.Unlock()
	st := state{V: 1, Bind: b.digest(), Exp: s.now().Add(ttl).Unix(), Nonce: hex.EncodeToString(nonce),
		Asked: append(append([]string(nil), r.asked...), r.digest), Answers: r.answers, Park: r.park}
	body, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	if len(body) > MaxStateBytes {
		return "", fmt.Errorf("the answers collected so far are larger than %d bytes", MaxStateBytes)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Open checks token for b and returns the Replay of the next run, with
// the client's answer to the pending request (from responses) added. The
// token is used up: the same state is refused a second time.
func (s *Signer) Open(ctx context.Context, token string, b Binding, responses mcp.InputResponses) (*Replay, error) {
	if len(token) > 2*MaxStateBytes {
		return nil, errors.New("requestState is too large")
	}
	bodyPart, macPart, ok := cut(token)
	if !ok {
		return nil, errors.New("requestState is not one the gateway issued")
	}
	body, err1 := base64.RawURLEncoding.DecodeString(bodyPart)
	mac, err2 := base64.RawURLEncoding.DecodeString(macPart)
	if err1 != nil || err2 != nil {
		return nil, errors.New("requestState is not one the gateway issued")
	}
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	want := hmac.New(sha256.New, key)
	want.Write(body)
	if subtle.ConstantTimeCompare(mac, want.Sum(nil)) != 1 {
		return nil, errors.New("requestState has a bad signature (forged, altered, or issued before the gateway's key changed)")
	}
	var st state
	if err := json.Unmarshal(body, &st); err != nil || st.V != 1 || len(st.Asked) != len(st.Answers)+1 {
		return nil, errors.New("requestState is malformed")
	}
	now := s.now().Unix()
	if now > st.Exp {
		return nil, fmt.Errorf("requestState expired %s ago: call the tool again from the start", time.Duration(now-st.Exp)*time.Second)
	}
	if subtle.ConstantTimeCompare([]byte(st.Bind), []byte(b.digest())) != 1 {
		return nil, errors.New("requestState was issued for another caller, tool or arguments")
	}
	id := IDPrefix + strconv.Itoa(len(st.Answers))
	resp, ok := responses[id]
	if !ok {
		return nil, fmt.Errorf("inputResponses has no answer to %q", id)
	}
	raw, err := json.Marshal(resp)
	if err != nil || len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("inputResponses[%q] is empty", id)
	}
	if err := s.use(ctx, st.Nonce, st.Exp, now); err != nil {
		return nil, err
	}
	return &Replay{answers: append(st.Answers, raw), asked: st.Asked, park: st.Park}, nil
}

// errUsed refuses a state already answered.
var errUsed = errors.New("requestState was already used: each state answers one retry")

// use records nonce as spent until exp, refusing one already spent, here
// or, when shared, on any replica.
func (s *Signer) use(ctx context.Context, nonce string, exp, now int64) error {
	s.mu.Lock()
	_, seen := s.used[nonce]
	shared := s.shared
	s.mu.Unlock()
	if seen {
		return errUsed
	}
	if shared != nil {
		// A second past exp, so that the key outlives the state whatever
		// the clocks' sub-second difference.
		fresh, err := shared.SpendOnce(ctx, nonce, time.Unix(exp+1, 0))
		if err != nil {
			return fmt.Errorf("requestState cannot be checked against the other replicas' (%w): call the tool again later", err)
		}
		if !fresh {
			return errUsed
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.used[nonce]; seen {
		return errUsed
	}
	if len(s.used) >= s.max {
		oldest, at := "", int64(0)
		for n, e := range s.used {
			if e < now {
				delete(s.used, n)
			} else if oldest == "" || e < at {
				oldest, at = n, e
			}
		}
		if len(s.used) >= s.max {
			delete(s.used, oldest)
		}
	}
	s.used[nonce] = exp
	return nil
}

func cut(token string) (body, mac string, ok bool) {
	i := strings.LastIndexByte(token, '.')
	return token[:max(i, 0)], token[i+1:], i > 0 && i < len(token)-1
}

// InputRequired is the tools/call result asking the client for r's
// pending request, with state.
func InputRequired(r *Replay, token string) *mcp.CallToolResult {
	id := IDPrefix + strconv.Itoa(len(r.answers))
	return &mcp.CallToolResult{
		Result: mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{
			InputRequests: mcp.InputRequests{id: *r.pending},
			RequestState:  token,
		},
	}
}

// First is the Replay of a call's first run.
func First() *Replay { return &Replay{} }
