package policy

import (
	"math"
	"path"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// fkind is the type of a fast value.
type fkind uint8

const (
	fNone      fkind = iota // declined: cel-go decides
	fBool                   // n: 0 or 1
	fInt                    // i
	fUint                   // u
	fDouble                 // d
	fString                 // s
	fMap                    // m: args, principal.claims, an object in them
	fPrincipal              // the principal variable
)

// fval is a fast value. Only the field of its kind is set.
type fval struct {
	k fkind
	n uint64 // a bool (0 or 1), an int (int64(n)), a uint, a double (math.Float64bits)
	s string
	m map[string]any
}

var declined = fval{}

func fbool(b bool) fval {
	if b {
		return fval{k: fBool, n: 1}
	}
	return fval{k: fBool}
}

// native is the fast value of v, a value of args or of a claim as
// encoding/json decodes it; anything else is declined.
func native(v any) fval {
	switch x := v.(type) {
	case string:
		return fval{k: fString, s: x}
	case float64:
		if math.IsNaN(x) {
			return declined
		}
		return fval{k: fDouble, n: math.Float64bits(x)}
	case bool:
		return fbool(x)
	case map[string]any:
		if x == nil {
			return declined
		}
		return fval{k: fMap, m: x}
	}
	return declined
}

// fop is what a fast node does.
type fop uint8

const (
	foLit    fop = iota // v
	foIdent             // name
	foField             // a.name, or has(a.name) with has
	foList              // list: a list literal, only as in's right side
	foAnd               // a && b
	foOr                // a || b
	foNot               // !a
	foCond              // a ? b : c
	foIn                // a in b
	foClean             // path.clean(a)
	foPrefix            // a.startsWith(b)
	foSuffix            // a.endsWith(b)
	foEq                // a == b
	foNe                // a != b
	foLt                // a < b
	foLe                // a <= b
	foGt                // a > b
	foGe                // a >= b
)

// A fast condition evaluates the common shape of a `when` (comparisons
// of the request's variables, their fields and literals, joined by &&,
// || and !) on the request itself, without cel-go's interpreter: no
// activation, no boxing of every value into a ref.Val, no allocation.
// It is a shortcut, never a second semantics: whatever it cannot decide
// exactly as cel-go decides it (an error of any kind, a null, a list or
// a number of a type JSON does not give, a NaN) it declines, and the
// compiled cel-go program evaluates the condition as before. A shape it
// does not know (a macro, a function other than the few below) leaves
// the condition without one at compile time, as does a condition whose
// cost cel-go must track (it could exceed MaxCost). FuzzFastCondition compares the two.
//
// What it evaluates: literals (bool, int, uint, double, string); the
// variables; args.k, args["k"], principal.name, principal.claims and the
// fields of an object in them; has() of those; the six comparisons, with
// CEL's cross-type numeric comparisons and heterogeneous equality; &&,
// || (either side may decide), !, ?:; in (a scalar in a list literal, a
// string among an object's keys); startsWith, endsWith and path.clean on
// strings. (What cel-go tracks the cost of, such as contains, in over a
// list of the request and == of two strings of the request, is never
// fast.)
//
// A fast condition is a tree of nodes of one concrete type (not an
// interface per operation), so that the compiler sees that evaluating
// does not keep the request: it stays on the caller's stack.
type fast struct {
	op      fop
	v       fval
	name    string
	has     bool
	list    []fval
	a, b, c *fast
}

// compileFast returns the fast form of a checked expression, or nil
// when it has a shape the fast form does not evaluate.
func compileFast(e celast.Expr) *fast {
	switch e.Kind() {
	case celast.LiteralKind:
		switch v := e.AsLiteral().(type) {
		case types.Bool:
			return &fast{op: foLit, v: fbool(bool(v))}
		case types.Int:
			return &fast{op: foLit, v: fval{k: fInt, n: uint64(v)}}
		case types.Uint:
			return &fast{op: foLit, v: fval{k: fUint, n: uint64(v)}}
		case types.Double:
			if math.IsNaN(float64(v)) {
				return nil
			}
			return &fast{op: foLit, v: fval{k: fDouble, n: math.Float64bits(float64(v))}}
		case types.String:
			return &fast{op: foLit, v: fval{k: fString, s: string(v)}}
		}
		return nil
	case celast.IdentKind:
		switch n := e.AsIdent(); n {
		case varPrincipal, varTool, varName, varKind, varArgs, varTransport:
			return &fast{op: foIdent, name: n}
		}
		return nil
	case celast.SelectKind:
		s := e.AsSelect()
		op := compileFast(s.Operand())
		if op == nil {
			return nil
		}
		return &fast{op: foField, a: op, name: s.FieldName(), has: s.IsTestOnly()}
	case celast.ListKind:
		l := e.AsList()
		if len(l.OptionalIndices()) > 0 {
			return nil
		}
		n := &fast{op: foList}
		for _, el := range l.Elements() {
			x := compileFast(el)
			if x == nil || x.op != foLit {
				return nil
			}
			n.list = append(n.list, x.v)
		}
		return n
	case celast.CallKind:
		return compileCall(e.AsCall())
	}
	return nil
}

var binary = map[string]fop{
	operators.LogicalAnd: foAnd, operators.LogicalOr: foOr, operators.In: foIn,
	operators.Equals: foEq, operators.NotEquals: foNe, operators.Less: foLt,
	operators.LessEquals: foLe, operators.Greater: foGt, operators.GreaterEquals: foGe,
}

var members = map[string]fop{"startsWith": foPrefix, "endsWith": foSuffix}

func compileCall(c celast.CallExpr) *fast {
	var args []*fast
	if c.IsMemberFunction() {
		t := compileFast(c.Target())
		if t == nil {
			return nil
		}
		args = append(args, t)
	}
	for _, a := range c.Args() {
		x := compileFast(a)
		if x == nil {
			return nil
		}
		args = append(args, x)
	}
	fn := c.FunctionName()
	if op, ok := members[fn]; ok && c.IsMemberFunction() && len(args) == 2 {
		return &fast{op: op, a: args[0], b: args[1]}
	}
	if c.IsMemberFunction() {
		return nil
	}
	if op, ok := binary[fn]; ok && len(args) == 2 {
		if args[0].op == foList || op != foIn && args[1].op == foList {
			return nil // a list literal is evaluated only as in's right side
		}
		return &fast{op: op, a: args[0], b: args[1]}
	}
	switch {
	case fn == operators.LogicalNot && len(args) == 1:
		return &fast{op: foNot, a: args[0]}
	case fn == "path.clean" && len(args) == 1:
		return &fast{op: foClean, a: args[0]}
	case fn == operators.Conditional && len(args) == 3:
		return &fast{op: foCond, a: args[0], b: args[1], c: args[2]}
	case fn == operators.Index && len(args) == 2 && args[1].op == foLit && args[1].v.k == fString:
		return &fast{op: foField, a: args[0], name: args[1].v.s}
	}
	return nil
}

// truth is the outcome of the condition on r, and whether the fast form
// decided it (else cel-go must).
func (n *fast) truth(r *Request) (truth, bool) {
	v := n.eval(r)
	if v.k != fBool {
		return isError, false
	}
	if v.n == 1 {
		return isTrue, true
	}
	return isFalse, true
}

func (n *fast) eval(r *Request) fval {
	switch n.op {
	case foLit:
		return n.v
	case foIdent:
		switch n.name {
		case varTool, varName:
			return fval{k: fString, s: r.Name}
		case varKind:
			return fval{k: fString, s: r.Kind.String()}
		case varTransport:
			return fval{k: fString, s: r.Transport}
		case varArgs:
			return fval{k: fMap, m: r.Args} // nil reads as an empty map, as the activation's
		}
		return fval{k: fPrincipal}
	case foField:
		return n.field(r)
	case foAnd, foOr:
		// CEL's && (||): false (true) if either side is, whatever the
		// other (an error included); else the other side when both are
		// bools; else an error.
		var absorbing uint64 // false absorbs &&
		if n.op == foOr {
			absorbing = 1 // true absorbs ||
		}
		a := n.a.eval(r)
		if a.k == fBool && a.n == absorbing {
			return a
		}
		b := n.b.eval(r)
		if b.k == fBool && (b.n == absorbing || a.k == fBool) {
			return b
		}
		return declined
	case foNot:
		if a := n.a.eval(r); a.k == fBool {
			return fbool(a.n == 0)
		}
		return declined
	case foCond:
		c := n.a.eval(r)
		switch {
		case c.k != fBool:
			return declined
		case c.n == 1:
			return n.b.eval(r)
		}
		return n.c.eval(r)
	case foIn:
		return n.in(r)
	case foClean:
		if a := n.a.eval(r); a.k == fString {
			return fval{k: fString, s: path.Clean(a.s)}
		}
		return declined
	case foPrefix, foSuffix:
		s, a := n.a.eval(r), n.b.eval(r)
		if s.k != fString || a.k != fString {
			return declined
		}
		if n.op == foPrefix {
			return fbool(strings.HasPrefix(s.s, a.s))
		}
		return fbool(strings.HasSuffix(s.s, a.s))
	case foEq, foNe:
		eq, ok := equal(n.a.eval(r), n.b.eval(r))
		if !ok {
			return declined
		}
		return fbool(eq == (n.op == foEq))
	case foLt, foLe, foGt, foGe:
		c, ok := compare(n.a.eval(r), n.b.eval(r))
		if !ok {
			return declined
		}
		switch n.op {
		case foLt:
			return fbool(c < 0)
		case foLe:
			return fbool(c <= 0)
		case foGt:
			return fbool(c > 0)
		}
		return fbool(c >= 0)
	}
	return declined
}

// field is n.a.name, or has(n.a.name).
func (n *fast) field(r *Request) fval {
	v := n.a.eval(r)
	switch v.k {
	case fPrincipal: // the activation's map: name, groups, claims
		var x fval
		switch n.name {
		case "name":
			x = fval{k: fString, s: r.Principal.Name}
		case "groups": // a list: only has() is evaluated fast
			x = declined
		case "claims":
			x = fval{k: fMap, m: r.Principal.Claims}
		default:
			if n.has {
				return fbool(false)
			}
			return declined // no such key: an error
		}
		if n.has {
			return fbool(true)
		}
		return x
	case fMap:
		x, ok := v.m[n.name]
		if n.has {
			return fbool(ok)
		}
		if !ok {
			return declined
		}
		return native(x)
	}
	return declined
}

// in is n.a in n.b: a scalar among a list literal's elements, a string
// among a map's keys. (In a list of the request, principal.groups or a
// claim, its cost is tracked: cel-go evaluates it.)
func (n *fast) in(r *Request) fval {
	a := n.a.eval(r)
	if !a.scalar() {
		return declined
	}
	if n.b.op == foList {
		for _, v := range n.b.list {
			if eq, ok := equal(a, v); !ok {
				return declined
			} else if eq {
				return fbool(true)
			}
		}
		return fbool(false)
	}
	if b := n.b.eval(r); b.k == fMap && a.k == fString {
		_, ok := b.m[a.s]
		return fbool(ok)
	}
	return declined
}

func (v fval) scalar() bool {
	switch v.k {
	case fBool, fInt, fUint, fDouble, fString:
		return true
	}
	return false
}

func (v fval) number() bool { return v.k == fInt || v.k == fUint || v.k == fDouble }

// equal is CEL's heterogeneous equality of two scalars: numbers of any
// type compare by value, other values of different types are unequal.
// ok is false for anything but scalars.
func equal(a, b fval) (eq, ok bool) {
	if !a.scalar() || !b.scalar() {
		return false, false
	}
	if a.number() && b.number() {
		c, ok := compare(a, b)
		return ok && c == 0, ok
	}
	if a.k != b.k {
		return false, true
	}
	if a.k == fString {
		return a.s == b.s, true
	}
	return a.n == b.n, true // bool
}

// compare orders two scalars as CEL's Compare does (common/types
// compare.go): numbers across types, strings by bytes, false before
// true; ok is false where CEL has no such overload.
func compare(a, b fval) (c int, ok bool) {
	switch {
	case a.k == fString && b.k == fString:
		return strings.Compare(a.s, b.s), true
	case a.k == fBool && b.k == fBool:
		return int(a.n) - int(b.n), true
	case !a.number() || !b.number():
		return 0, false
	}
	switch a.k {
	case fDouble:
		switch b.k {
		case fDouble:
			return cmpDouble(math.Float64frombits(a.n), math.Float64frombits(b.n)), true
		case fInt:
			return cmpDoubleInt(math.Float64frombits(a.n), int64(b.n)), true
		}
		return cmpDoubleUint(math.Float64frombits(a.n), b.n), true
	case fInt:
		switch b.k {
		case fDouble:
			return -cmpDoubleInt(math.Float64frombits(b.n), int64(a.n)), true
		case fInt:
			return cmpOrdered(int64(a.n), int64(b.n)), true
		}
		return cmpIntUint(int64(a.n), b.n), true
	}
	switch b.k { // a is a uint
	case fDouble:
		return -cmpDoubleUint(math.Float64frombits(b.n), a.n), true
	case fInt:
		return -cmpIntUint(int64(b.n), a.n), true
	}
	return cmpOrdered(a.n, b.n), true
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpDouble(a, b float64) int { return cmpOrdered(a, b) }

func cmpDoubleInt(d float64, i int64) int {
	switch {
	case d < math.MinInt64:
		return -1
	case d > math.MaxInt64:
		return 1
	}
	return cmpDouble(d, float64(i))
}

func cmpDoubleUint(d float64, u uint64) int {
	switch {
	case d < 0:
		return -1
	case d > math.MaxUint64:
		return 1
	}
	return cmpDouble(d, float64(u))
}

func cmpIntUint(i int64, u uint64) int {
	if i < 0 || u > math.MaxInt64 {
		return -1
	}
	return cmpOrdered(i, int64(u))
}
