package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// MaxOutput bounds what a ranker's rank may return; more is invalid.
const MaxOutput = 64 << 10

// Outcomes of a ranker run: the outcome label of
// wasmgate_tool_search_ranker_total.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"   // the module failed: a trap, an error it set, a non-zero return
	OutcomeTimeout = "timeout" // it ran past limits.timeout (or the search's own deadline)
	OutcomeInvalid = "invalid" // it returned something other than one finite score per candidate
)

// Errors a Rank wraps, besides the module's own failures (OutcomeError).
var (
	// ErrTimeout: the ranker did not answer within limits.timeout.
	ErrTimeout = errors.New("timed out")
	// ErrInvalid: the ranker's output is not {"scores": [...]} with
	// one finite number per candidate, within MaxOutput bytes.
	ErrInvalid = errors.New("invalid output")
)

// Outcome classifies the error of a Rank (nil: OutcomeOK).
func Outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	case errors.Is(err, ErrInvalid):
		return OutcomeInvalid
	}
	return OutcomeError
}

// Module is a compiled ranker module with its pool of instances: at most
// limits.concurrency run at once, and each Rank (waiting for an instance
// included) is bounded by limits.timeout (loader.Pool). It is safe for
// concurrent use.
type Module struct {
	name    string
	timeout time.Duration
	pool    *loader.Pool
}

var _ Ranker = (*Module)(nil)

// New compiles the ranker module mod, fetched for spec (a normalized
// discovery.ranker), with c. slots, if not nil, are the gateway-wide
// WebAssembly call slots (server.max_concurrent_calls) each call takes
// one of.
func New(ctx context.Context, c *loader.Compiler, spec loader.PluginSpec, mod fetch.Module, slots chan struct{}) (*Module, error) {
	p, first, err := c.CompileRanker(ctx, spec, mod)
	if err != nil {
		return nil, err
	}
	return &Module{
		name:    spec.Name,
		timeout: time.Duration(spec.Limits.Timeout),
		pool:    loader.NewPool(p, first, spec.Limits.Concurrency, slots),
	}, nil
}

// Name is the ranker's name (discovery.ranker.name).
func (m *Module) Name() string { return m.name }

// SHA256 is the digest of the ranker's module.
func (m *Module) SHA256() string { return m.pool.SHA256() }

// Close closes the idle instances and the compiled module. No Rank may
// be running or start.
func (m *Module) Close(ctx context.Context) error { return m.pool.Close(ctx) }

// input and output are the JSON of a rank call (docs/plugins.md,
// "Rankers").
type (
	input struct {
		Query      string      `json:"query"`
		Candidates []candidate `json:"candidates"`
	}
	candidate struct {
		Name        string  `json:"name"`
		Title       string  `json:"title"`
		Description string  `json:"description"`
		Source      string  `json:"source"`
		Score       float64 `json:"score"`
	}
	output struct {
		Scores *[]*float64 `json:"scores"`
	}
)

// Rank runs the module's rank on query and cands, within limits.timeout:
// one finite score per candidate, or an error for which Outcome says
// what went wrong.
func (m *Module) Rank(ctx context.Context, query string, cands []Candidate) ([]float64, error) {
	if len(cands) == 0 {
		return []float64{}, nil
	}
	in := input{Query: query, Candidates: make([]candidate, len(cands))}
	for i, c := range cands {
		if math.IsNaN(c.Score) || math.IsInf(c.Score, 0) {
			c.Score = 0 // JSON has no NaN; a lexical scorer never gives one
		}
		in.Candidates[i] = candidate(c)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("ranker %q: encode its input: %w", m.name, err)
	}
	out, err := m.call(ctx, time.Now().Add(m.timeout), data)
	if err != nil {
		return nil, err
	}
	scores, err := parse(out, len(cands))
	if err != nil {
		return nil, fmt.Errorf("ranker %q: %w: %s", m.name, ErrInvalid, err)
	}
	return scores, nil
}

// call runs rank with data on an instance of the pool, until at.
func (m *Module) call(ctx context.Context, at time.Time, data []byte) ([]byte, error) {
	out, err := m.pool.Call(ctx, at, loader.RankExport, func(b []byte) []byte { return append(b, data...) })
	if err == nil {
		return out, nil
	}
	var ce *abi.CallError
	switch {
	case errors.Is(err, loader.ErrNoInstance):
		return nil, fmt.Errorf("ranker %q: %w waiting for an instance (limits.timeout %s, limits.concurrency %d)", m.name, ErrTimeout, m.timeout, m.pool.Size())
	case !errors.As(err, &ce):
		return nil, fmt.Errorf("ranker %q: %w", m.name, err)
	case ce.Kind == abi.KindTimeout:
		return nil, fmt.Errorf("ranker %q: %w (limits.timeout %s)", m.name, ErrTimeout, m.timeout)
	}
	return nil, fmt.Errorf("ranker %q: %s: %w", m.name, ce.Kind, err)
}

// parse reads rank's output: {"scores": [n numbers]}, each finite.
func parse(out []byte, n int) ([]float64, error) {
	if len(out) > MaxOutput {
		return nil, fmt.Errorf("%d bytes, over the bound of %d", len(out), MaxOutput)
	}
	var o output
	if err := json.Unmarshal(out, &o); err != nil {
		return nil, fmt.Errorf("not a JSON object {\"scores\": [...]}: %v", err)
	}
	if o.Scores == nil {
		return nil, errors.New(`no "scores" array`)
	}
	if len(*o.Scores) != n {
		return nil, fmt.Errorf("%d scores for %d candidates", len(*o.Scores), n)
	}
	scores := make([]float64, n)
	for i, s := range *o.Scores {
		if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
			return nil, fmt.Errorf("score %d is not a finite number", i)
		}
		scores[i] = *s
	}
	return scores, nil
}
