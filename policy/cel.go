package policy

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// MaxCost bounds the work of one evaluation of a `when` condition
// (cel.CostLimit; a comparison costs about 1, each element a
// comprehension visits about as much as its body). Going over it is an
// evaluation error, which fails closed.
const MaxCost = 100_000

// MaxWhenLen bounds the length of a `when` expression, in code points.
const MaxWhenLen = 4096

// The variables a `when` condition sees.
const (
	varPrincipal = "principal" // map: name (string), groups (list of string), claims (map)
	varTool      = "tool"      // the tool name, prompt name or resource URI
	varName      = "name"      // the same as tool
	varKind      = "kind"      // "tool", "resource" or "prompt"
	varArgs      = "args"      // map: the call's arguments
	varTransport = "transport" // "http" or "stdio"
	// varConnected: the upstreams with auth.user_oauth the caller has
	// connected (list of string), read only by conditions that use it.
	varConnected = "connected"
	// varSession: the caller's session as flow control sees it (map:
	// labels, the flow labels its calls have touched), read only by
	// conditions that use it.
	varSession = "session"
)

type celEnv struct{ env *cel.Env }

// pathClean is the CEL function path.clean(string) -> string: Go's
// path.Clean, the shortest path naming the same file lexically ("." and
// ".." elements resolved, repeated and trailing slashes dropped;
// "/public/../secret" is "/secret", "public/../../x" is "../x", "" is
// "."). A condition on a path argument should test the cleaned path:
// path.clean(args.path).startsWith("/public/").
func pathClean() cel.EnvOption {
	return cel.Function("path.clean",
		cel.Overload("path_clean_string", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return types.String(path.Clean(string(s)))
			})))
}

func newCELEnv() (*celEnv, error) {
	env, err := cel.NewEnv(
		cel.Variable(varPrincipal, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(varTool, cel.StringType),
		cel.Variable(varName, cel.StringType),
		cel.Variable(varKind, cel.StringType),
		cel.Variable(varArgs, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(varTransport, cel.StringType),
		cel.Variable(varConnected, cel.ListType(cel.StringType)),
		cel.Variable(varSession, cel.MapType(cel.StringType, cel.DynType)),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
		pathClean(),
		cel.ParserExpressionSizeLimit(MaxWhenLen),
	)
	if err != nil {
		return nil, err
	}
	return &celEnv{env: env}, nil
}

// condition is a compiled `when`. prg evaluates calls; partial evaluates
// with some variables unknown, for lists.
type condition struct {
	src     string
	prg     cel.Program
	partial cel.Program
	tracked bool            // prg counts its cost (it could exceed MaxCost)
	fast    *fast           // nil: prg evaluates every call (celfast.go)
	uses    map[string]bool // the variables it refers to
	// fixed[m] is the result at list time in mode m when that does not
	// depend on anything a list knows (e.g. a condition on args only).
	fixed [numModes]truth
	isFix [numModes]bool
}

// A list knows less than a call: mode says what is unknown.
type mode uint8

const (
	modeList     mode = iota // args, transport
	modeTemplate             // args, transport, tool, name
	numModes
)

func (m mode) unknown() []string {
	if m == modeTemplate {
		return []string{varArgs, varTransport, varTool, varName, varConnected, varSession}
	}
	return []string{varArgs, varTransport, varConnected, varSession}
}

func (e *celEnv) compile(src string) (*condition, error) {
	ast, iss := e.env.Compile(src)
	if iss.Err() != nil {
		var msgs []string
		for _, e := range iss.Errors() {
			msgs = append(msgs, fmt.Sprintf("%s (line %d, column %d)", e.Message, e.Location.Line(), e.Location.Column()+1))
		}
		if len(msgs) == 0 {
			return nil, iss.Err()
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	if k := ast.OutputType().Kind(); k != types.BoolKind && k != types.DynKind {
		return nil, fmt.Errorf("is a %s expression; want a bool (true or false)", ast.OutputType())
	}
	// Cost tracking doubles the price of a cheap condition; it is left out
	// when the checker proves the cost bounded by MaxCost whatever the
	// input (no loop over an argument, no function of an argument's size).
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	est, err := e.env.EstimateCost(ast, unknownSizes{})
	tracked := err != nil || est.Max > MaxCost
	if tracked {
		opts = append(opts, cel.CostLimit(MaxCost))
	}
	prg, err := e.env.Program(ast, opts...)
	if err != nil {
		return nil, err
	}
	partial, err := e.env.Program(ast, cel.CostLimit(MaxCost), cel.EvalOptions(cel.OptPartialEval))
	if err != nil {
		return nil, err
	}
	c := &condition{src: src, prg: prg, partial: partial, tracked: tracked, uses: map[string]bool{}}
	if !tracked {
		c.fast = compileFast(ast.NativeRep().Expr())
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if len(ref.OverloadIDs) == 0 && ref.Name != "" {
			c.uses[ref.Name] = true
		}
	}
	for m := range numModes {
		if !c.usesAny(m.known()) {
			c.fixed[m] = c.evalPartial(&activation{}, m)
			c.isFix[m] = true
		}
	}
	return c, nil
}

// known is every variable a list in mode m knows.
func (m mode) known() []string {
	var out []string
	for _, v := range []string{varPrincipal, varTool, varName, varKind, varArgs, varTransport, varConnected, varSession} {
		if !slices.Contains(m.unknown(), v) {
			out = append(out, v)
		}
	}
	return out
}

func (c *condition) usesAny(vars []string) bool {
	for _, v := range vars {
		if c.uses[v] {
			return true
		}
	}
	return false
}

// atList evaluates the condition with what a list in mode m knows.
func (c *condition) atList(a *activation, m mode) truth {
	switch {
	case c.isFix[m]:
		return c.fixed[m]
	case !c.usesAny(m.unknown()):
		return c.eval(a)
	}
	return c.evalPartial(a, m)
}

// unknownSizes lets the cost estimate assume any input size.
type unknownSizes struct{}

func (unknownSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }

func (unknownSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// truth is what a condition came to.
type truth uint8

const (
	isFalse truth = iota
	isTrue
	isUnknown // depends on a variable not known yet (lists)
	isError   // failed: no such key, wrong type, over MaxCost, not a bool
)

func outcome(v ref.Val, err error) truth {
	switch {
	case err != nil:
		if v != nil && types.IsUnknown(v) {
			return isUnknown
		}
		return isError
	case types.IsUnknown(v):
		return isUnknown
	}
	if b, ok := v.(types.Bool); ok {
		if b {
			return isTrue
		}
		return isFalse
	}
	return isError
}

func (c *condition) eval(a *activation) truth {
	if c.fast != nil {
		if t, ok := c.fast.truth(&a.req); ok {
			return t
		}
	}
	return c.prgEval(a)
}

// prgEval is eval by cel-go alone.
func (c *condition) prgEval(a *activation) truth {
	v, _, err := c.prg.Eval(a)
	return outcome(v, err)
}

// evalPartial evaluates with the variables unknown in mode m unknown.
func (c *condition) evalPartial(a *activation, m mode) truth {
	var unknown []*cel.AttributePatternType
	for _, v := range m.unknown() {
		unknown = append(unknown, cel.AttributePattern(v))
	}
	pa, err := cel.PartialVars(a, unknown...)
	if err != nil {
		return isError
	}
	v, _, err := c.partial.Eval(pa)
	return outcome(v, err)
}

// activation resolves the variables of a condition for one request
// without building a map of them.
type activation struct {
	req       Request
	principal map[string]any
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case varPrincipal:
		if a.principal == nil {
			groups, claims := a.req.Principal.Groups, a.req.Principal.Claims
			if groups == nil {
				groups = []string{}
			}
			if claims == nil {
				claims = map[string]any{}
			}
			a.principal = map[string]any{"name": a.req.Principal.Name, "groups": groups, "claims": claims}
		}
		return a.principal, true
	case varTool, varName:
		return a.req.Name, true
	case varKind:
		return a.req.Kind.String(), true
	case varArgs:
		if a.req.Args == nil {
			return map[string]any{}, true
		}
		return a.req.Args, true
	case varTransport:
		return a.req.Transport, true
	case varConnected:
		if a.req.Connected == nil {
			return []string{}, true
		}
		return a.req.Connected(), true
	case varSession:
		labels := []string{}
		if a.req.SessionLabels != nil {
			// nil: the labels could not be read; the condition fails,
			// and a failed condition denies.
			if labels = a.req.SessionLabels(); labels == nil {
				return types.NewErr("session.labels: the flow state is unavailable"), true
			}
		}
		return map[string]any{"labels": labels}, true
	}
	return nil, false
}

func (a *activation) Parent() cel.Activation { return nil }
