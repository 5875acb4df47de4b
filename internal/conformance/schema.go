package conformance

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The ACP JSON Schemas a message is checked against: it is valid when one
// of them accepts it, so an agent written to either protocol version is
// judged by its own. sdkSchema is the one the SDK acpsnap's client speaks
// ships (github.com/coder/acp-go-sdk v0.13.0, schema/schema.unstable.json:
// the stable protocol and the unstable methods its client also speaks,
// session/fork, session/set_model, …; TestSchemaIsTheSDKs keeps it the
// SDK's). latestSchema is the newest published v1 schema
// (github.com/agentclientprotocol/agent-client-protocol,
// schema/v1/schema.unstable.json at bb2ef8f7, August 2026), which knows
// what the protocol added since (sessionCapabilities.delete, …).
var (
	//go:embed schema.json
	sdkSchema []byte
	//go:embed schema.latest.json
	latestSchema []byte
)

// schema is one compiled schema file: its $defs by name, and the $defs of
// each method's params and result.
type schema struct {
	defs    map[string]*node
	methods map[string]method
}

// method names the $defs of a method's params and its result, from the
// schema's x-method annotations: side is "agent" for the methods the agent
// serves (the client calls them), "client" for those the client serves.
type method struct {
	side           string
	params, result string
}

// schemas are the compiled schemas, the SDK's first.
var schemas = sync.OnceValue(func() []*schema {
	return []*schema{compileSchema(sdkSchema), compileSchema(latestSchema)}
})

// compileSchema compiles a schema file, which must be valid (it is
// embedded).
func compileSchema(b []byte) *schema {
	var raw struct {
		Defs map[string]any `json:"$defs"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&raw); err != nil {
		panic("conformance: embedded schema: " + err.Error())
	}
	s := &schema{defs: map[string]*node{}, methods: map[string]method{}}
	for name, v := range raw.Defs {
		n := compile(v)
		n.def = name
		s.defs[name] = n
		m, _ := v.(map[string]any)
		meth, _ := m["x-method"].(string)
		if meth == "" {
			continue
		}
		mm := s.methods[meth]
		mm.side, _ = m["x-side"].(string)
		if strings.HasSuffix(name, "Response") {
			mm.result = name
		} else {
			mm.params = name
		}
		s.methods[meth] = mm
	}
	for _, n := range s.defs {
		n.link(s.defs, map[*node]bool{})
	}
	return s
}

// node is one compiled schema of schema.json. It holds only the keywords
// the file uses; a keyword it does not know is ignored (never a false
// violation).
type node struct {
	def      string // the name of a $defs entry; "" below one
	ref      string
	target   *node // the $defs entry ref names, once linked
	types    []string
	props    map[string]*node
	required []string
	addl     *node // additionalProperties as a schema; nil: see open
	open     bool  // additionalProperties: true (or a schema)
	items    *node
	allOf    []*node
	anyOf    []*node // oneOf too: checked as anyOf, never stricter than the schema means
	disc     string  // discriminator.propertyName of the anyOf
	enum     []any
	konst    any
	hasConst bool
	format   string
	min, max *float64
	desc     string
	title    string
}

func compile(v any) *node {
	m, ok := v.(map[string]any)
	if !ok {
		return &node{} // true: anything
	}
	n := &node{}
	n.ref, _ = m["$ref"].(string)
	n.desc, _ = m["description"].(string)
	n.title, _ = m["title"].(string)
	n.format, _ = m["format"].(string)
	switch t := m["type"].(type) {
	case string:
		n.types = []string{t}
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			n.types = append(n.types, s)
		}
	}
	if p, ok := m["properties"].(map[string]any); ok {
		n.props = map[string]*node{}
		for k, v := range p {
			n.props[k] = compile(v)
		}
	}
	for _, r := range asList(m["required"]) {
		s, _ := r.(string)
		n.required = append(n.required, s)
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		n.open = a
	case map[string]any:
		n.addl, n.open = compile(a), true
	}
	if it, ok := m["items"]; ok {
		n.items = compile(it)
	}
	for _, e := range asList(m["allOf"]) {
		n.allOf = append(n.allOf, compile(e))
	}
	for _, e := range append(asList(m["anyOf"]), asList(m["oneOf"])...) {
		n.anyOf = append(n.anyOf, compile(e))
	}
	if d, ok := m["discriminator"].(map[string]any); ok {
		n.disc, _ = d["propertyName"].(string)
	}
	n.enum = asList(m["enum"])
	n.konst, n.hasConst = m["const"]
	n.min, n.max = number(m["minimum"]), number(m["maximum"])
	return n
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func number(v any) *float64 {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil
	}
	return &f
}

// link resolves every $ref below n to its $defs entry.
func (n *node) link(all map[string]*node, seen map[*node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	if name, ok := strings.CutPrefix(n.ref, "#/$defs/"); ok {
		n.target = all[name]
	}
	for _, p := range n.props {
		p.link(all, seen)
	}
	for _, c := range slices.Concat(n.allOf, n.anyOf, []*node{n.addl, n.items}) {
		c.link(all, seen)
	}
}

// problem is one way a value breaks its schema.
type problem struct {
	path string // where, "$.result.stopReason"
	msg  string // what is wrong
	desc string // the schema's description of what was expected (the spec's words)
}

// check validates v (decoded with UseNumber) against n; path is v's
// place. It reports every problem of the branch that got furthest, never
// a field the schema does not declare (custom does).
func (n *node) check(v any, path string) []problem {
	if n.target != nil {
		ps := n.target.check(v, path)
		return withDesc(ps, n.desc)
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return isType(v, t) }) {
		return []problem{{path, fmt.Sprintf("%s, want %s", kindOf(v), strings.Join(n.types, " or ")), n.desc}}
	}
	if n.hasConst && !same(v, n.konst) {
		return []problem{{path, fmt.Sprintf("%s, want %s", short(v), short(n.konst)), n.desc}}
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return same(v, e) }) {
		return []problem{{path, fmt.Sprintf("%s is not one of %s", short(v), list(n.enum)), n.desc}}
	}
	if p := n.checkNumber(v, path); p != nil {
		return []problem{*p}
	}
	var out []problem
	switch v := v.(type) {
	case map[string]any:
		for _, r := range n.required {
			if _, ok := v[r]; !ok {
				desc := n.desc
				if p := n.props[r]; p != nil {
					desc = p.description()
				}
				out = append(out, problem{path, fmt.Sprintf("%q is required", r), desc})
			}
		}
		for k, e := range v { // problems are sorted once, by whoever reports them
			if p := n.props[k]; p != nil {
				out = append(out, p.check(e, path+key(k))...)
			} else if n.addl != nil {
				out = append(out, n.addl.check(e, path+key(k))...)
			}
		}
	case []any:
		if n.items != nil {
			for i, e := range v {
				out = append(out, n.items.check(e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	for _, a := range n.allOf {
		out = append(out, withDesc(a.check(v, path), n.desc)...)
	}
	if len(n.anyOf) > 0 {
		out = append(out, n.checkAny(v, path)...)
	}
	return out
}

// checkAny is anyOf (and oneOf): the branch the discriminator names, else
// the first branch v matches; when none does, the problems of the branch
// that got furthest, or "is not one of" a list of constants.
func (n *node) checkAny(v any, path string) []problem {
	if n.disc != "" {
		if m, ok := v.(map[string]any); ok {
			if b := n.branchFor(m); b != nil {
				return b.check(v, path)
			}
			if _, ok := m[n.disc]; !ok {
				return []problem{{path, fmt.Sprintf("%q is required", n.disc), n.desc}}
			}
			return []problem{{path + key(n.disc), fmt.Sprintf("%s is not one of %s", short(m[n.disc]), list(n.consts())), n.desc}}
		}
	}
	var best []problem
	bestDepth := -1
	for _, b := range n.anyOf {
		ps := b.check(v, path)
		if len(ps) == 0 {
			return nil
		}
		if d := depth(ps); d > bestDepth {
			best, bestDepth = ps, d
		}
	}
	if cs := n.consts(); len(cs) == len(n.anyOf) || bestDepth <= len(path) && len(cs) > 0 {
		return []problem{{path, fmt.Sprintf("%s is not one of %s", short(v), list(cs)), n.description()}}
	}
	return best
}

// branchFor is the branch of a discriminated union whose constant is m's
// discriminator value; nil: none.
func (n *node) branchFor(m map[string]any) *node {
	val, ok := m[n.disc]
	if !ok {
		return nil
	}
	for _, b := range n.anyOf {
		if c, ok := b.propConst(n.disc); ok && same(c, val) {
			return b
		}
	}
	return nil
}

// propConst is the constant that n (or a schema it refers to or includes)
// requires of property name.
func (n *node) propConst(name string) (any, bool) {
	if n.target != nil {
		return n.target.propConst(name)
	}
	if p := n.props[name]; p != nil && p.hasConst {
		return p.konst, true
	}
	for _, a := range n.allOf {
		if c, ok := a.propConst(name); ok {
			return c, true
		}
	}
	return nil, false
}

// consts are the constants of n's branches: the values of a union of
// constants, or the discriminator values of a tagged union.
func (n *node) consts() []any {
	var out []any
	for _, b := range n.anyOf {
		for b.target != nil {
			b = b.target
		}
		switch {
		case n.disc != "":
			if c, ok := b.propConst(n.disc); ok {
				out = append(out, c)
			}
		case b.hasConst:
			out = append(out, b.konst)
		case b.enum != nil:
			out = append(out, b.enum...)
		}
	}
	return out
}

// description is n's description, or the one of the schema it refers to.
func (n *node) description() string {
	for m := n; m != nil; m = m.target {
		if m.desc != "" {
			return m.desc
		}
	}
	return ""
}

func (n *node) checkNumber(v any, path string) *problem {
	num, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, err := num.Float64()
	if err != nil {
		return &problem{path, fmt.Sprintf("%s is out of range", num), n.desc}
	}
	lo, hi := n.min, n.max
	switch n.format {
	case "int32":
		lo, hi = tighter(lo, math.MinInt32, true), tighter(hi, math.MaxInt32, false)
	case "uint16":
		lo, hi = tighter(lo, 0, true), tighter(hi, math.MaxUint16, false)
	case "uint32":
		lo, hi = tighter(lo, 0, true), tighter(hi, math.MaxUint32, false)
	case "int64":
		lo, hi = tighter(lo, math.MinInt64, true), tighter(hi, math.MaxInt64, false)
	case "uint64":
		lo, hi = tighter(lo, 0, true), tighter(hi, math.MaxUint64, false)
	}
	if lo != nil && f < *lo || hi != nil && f > *hi {
		return &problem{path, fmt.Sprintf("%s is out of range (%s)", num, n.format), n.desc}
	}
	return nil
}

func tighter(b *float64, v float64, low bool) *float64 {
	if b == nil || low && v > *b || !low && v < *b {
		return &v
	}
	return b
}

// withDesc gives the problems without a description of their own the
// description d of the schema that included them.
func withDesc(ps []problem, d string) []problem {
	for i := range ps {
		if ps[i].desc == "" {
			ps[i].desc = d
		}
	}
	return ps
}

// depth is how far into the value the deepest problem is.
func depth(ps []problem) int {
	d := 0
	for _, p := range ps {
		d = max(d, len(p.path))
	}
	return d
}

func isType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	}
	return true
}

func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		if isType(v, "integer") {
			return "the integer " + v.String()
		}
		return "the number " + v.String()
	}
	return fmt.Sprintf("%T", v)
}

// same reports whether two decoded JSON scalars are equal (numbers by
// value).
func same(a, b any) bool {
	if x, ok := a.(json.Number); ok {
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		fx, e1 := x.Float64()
		fy, e2 := y.Float64()
		return e1 == nil && e2 == nil && fx == fy
	}
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// short is v as JSON, cut at 80 bytes.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

func list(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = short(v)
	}
	return strings.Join(s, ", ")
}

// sortProblems orders problems by place, then message: check walks
// objects in map order.
func sortProblems(ps []problem) []problem {
	slices.SortStableFunc(ps, func(a, b problem) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.msg, b.msg)
	})
	return ps
}

// key is the path step to member k: .name, or ["a b"] when k is not a
// plain name.
func key(k string) string {
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}

// custom lists the members of the objects in v that their schema does not
// declare: "custom fields at the root of a type that's part of the
// specification". A schema that admits any member (additionalProperties,
// or no properties at all) declares every one; a value that matches no
// branch of a union is check's to report, not custom's.
func (n *node) custom(v any, path string) []problem {
	var out []problem
	switch v := v.(type) {
	case map[string]any:
		decl := map[string]*node{}
		owner := n
		open, ok := n.declared(v, decl, &owner)
		if !ok {
			return nil
		}
		for k, e := range v {
			if s := decl[k]; s != nil {
				out = append(out, s.custom(e, path+key(k))...)
			} else if !open {
				out = append(out, problem{path + key(k), fmt.Sprintf("%q is not a member of %s", k, owner.name()), owner.description()})
			}
		}
	case []any:
		if it := n.itemsFor(v); it != nil {
			for i, e := range v {
				out = append(out, it.custom(e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return out
}

// declared adds the members n declares for the object v to decl (the
// first schema of each), following $ref, allOf and the branch of a union
// v matches; owner becomes the last $defs entry that declares members.
// open: n admits members it does not name; ok false: v matches no branch
// of a union.
func (n *node) declared(v map[string]any, decl map[string]*node, owner **node) (open, ok bool) {
	if n.target != nil {
		return n.target.declared(v, decl, owner)
	}
	if n.def != "" && n.props != nil {
		*owner = n
	}
	open = n.open || n.props == nil && len(n.allOf) == 0 && len(n.anyOf) == 0
	for k, p := range n.props {
		if decl[k] == nil {
			decl[k] = p
		}
	}
	for _, a := range n.allOf {
		o, ok := a.declared(v, decl, owner)
		if !ok {
			return false, false
		}
		open = open || o
	}
	if len(n.anyOf) > 0 {
		b := n.matching(v)
		if b == nil {
			return false, false
		}
		o, ok := b.declared(v, decl, owner)
		return open || o, ok
	}
	return open, true
}

// matching is the branch of n's union that v matches; nil: none.
func (n *node) matching(v any) *node {
	if m, ok := v.(map[string]any); ok && n.disc != "" {
		return n.branchFor(m)
	}
	for _, b := range n.anyOf {
		if len(b.check(v, "")) == 0 {
			return b
		}
	}
	return nil
}

// itemsFor is the schema of the items of the array v under n; nil: any.
func (n *node) itemsFor(v []any) *node {
	if n.target != nil {
		return n.target.itemsFor(v)
	}
	if n.items != nil {
		return n.items
	}
	for _, a := range n.allOf {
		if it := a.itemsFor(v); it != nil {
			return it
		}
	}
	if len(n.anyOf) > 0 {
		if b := n.matching(v); b != nil {
			return b.itemsFor(v)
		}
	}
	return nil
}

// name is the $defs name of n or of the schema it refers to, for
// messages.
func (n *node) name() string {
	for m := n; m != nil; m = m.target {
		if m.def != "" {
			return m.def
		}
	}
	return "its type"
}
