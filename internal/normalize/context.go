package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// kind is the kind of a numbered token.
type kind int8

const (
	none kind = iota - 1
	kindSession
	kindToolCall
	kindMessage
	kindApproval
	kindID
	kindAgentRPC
	numKinds
)

var kindNames = [numKinds]string{"session", "toolCall", "message", "approval", "id", "agentRpc"}

// plainTokens are the tokens without a number.
var plainTokens = [][]byte{[]byte("{{cwd}}"), []byte("{{home}}"), []byte("{{root}}"), []byte("{{time}}"),
	[]byte("{{cwdRel}}"), []byte("{{homeRel}}"), []byte("{{rootRel}}")}

// maxTokenDigits bounds N in {{KIND:N}}, so counters never overflow.
const maxTokenDigits = 9

// provisionalBase is where the numbers of provisional tokens start: above
// any number a run hands out for real, within maxTokenDigits.
const provisionalBase = 900_000_000

// Context is what one side of a comparison knows: its cwd, its home and
// run root (AddPath) and the spellings of each, and the tokens handed out
// so far. Use one Context for all files of
// one side, in order (primary log, child logs, stdout), and never share one
// between sides (see the package documentation). A Context is not safe for
// concurrent use. Cwd and Aliases must not change, nor AddPath be called,
// after the first use.
type Context struct {
	// Cwd is the working directory replaced by {{cwd}}. "" (or a path that
	// is not absolute, or "/") means no path is scrubbed.
	Cwd string
	// Aliases are other spellings of Cwd (realpath, "/private" prefix);
	// see the Aliases function.
	Aliases []string

	paths        [numPaths][]string // AddPath's spellings by token
	prepared     bool
	groups       []needleGroup         // all path spellings, see preparePaths
	nonce        []byte                // AddNonce's; nil: none
	nonceFolders []string              // AddNonce's other folders that hold it
	cuts         []cut                 // the spellings that hold the nonce, see prepareCuts
	headKeys     []string              // what a head cut holds, see mayCut
	rootTail     []byte                // the nonce's last minCut bytes
	tokens       map[string]string     // raw value → token (session … id)
	values       map[string]string     // token → the raw value it was given for
	rawLens      [maxKnownLen + 1]bool // lengths of the raw values in tokens
	rpc          map[string]string     // raw JSON of an agent request id → token
	next         [numKinds]int         // last number handed out per kind
	prov         bool                  // hand out provisional tokens (Provisional)
	provNext     [numKinds]int         // last provisional number handed out per kind, less provisionalBase
	moved        map[string]string     // a renumbered provisional token → its token now
	tree         tree                  // per-line scratch
}

// NewContext returns a Context for cwd and its alias spellings. It reads
// nothing from the file system; pass Aliases(cwd) for the usual spellings.
func NewContext(cwd string, aliases ...string) *Context {
	return &Context{Cwd: cwd, Aliases: aliases}
}

// FixtureContext returns the Context for a committed fixture side, derived
// from its session log's header: the first line of header (the rest, if any,
// is ignored). Its cwd is the header's cwd, which in normalized fixtures is
// already "{{cwd}}"; a stale raw cwd is scrubbed with its "/private"
// spellings.
func FixtureContext(header []byte) (*Context, error) {
	if i := bytes.IndexByte(header, '\n'); i >= 0 {
		header = header[:i]
	}
	var h struct {
		Cwd *string `json:"cwd"`
	}
	if err := json.Unmarshal(header, &h); err != nil {
		return nil, fmt.Errorf("normalize: fixture header: %w", err)
	}
	if h.Cwd == nil {
		return nil, fmt.Errorf("normalize: fixture header: no cwd")
	}
	return NewContext(*h.Cwd, privateVariants(*h.Cwd)...), nil
}

// prepare builds the needles and tables on first use.
func (c *Context) prepare() {
	if c.prepared {
		return
	}
	c.prepared = true
	c.tokens = make(map[string]string)
	c.values = make(map[string]string)
	c.rpc = make(map[string]string)
	c.moved = make(map[string]string)
	c.preparePaths()
	c.prepareCuts()
}

// assign returns the token of raw, handing out the next number of k when
// raw has none yet.
func (c *Context) assign(k kind, raw []byte) []byte {
	if t, ok := c.tokens[string(raw)]; ok {
		return []byte(t)
	}
	t := c.newToken(k)
	c.keep(string(raw), t)
	return []byte(t)
}

// keep records that raw stands for token.
func (c *Context) keep(raw, token string) {
	c.tokens[raw] = token
	if _, ok := c.values[token]; !ok {
		c.values[token] = raw
	}
	if len(raw) <= maxKnownLen {
		c.rawLens[len(raw)] = true
	}
}

func (c *Context) newToken(k kind) string {
	if c.prov && k != kindAgentRPC {
		c.provNext[k]++
		return "{{" + kindNames[k] + ":" + strconv.Itoa(provisionalBase+c.provNext[k]) + "}}"
	}
	c.next[k]++
	return "{{" + kindNames[k] + ":" + strconv.Itoa(c.next[k]) + "}}"
}

// advance moves k's counter past num, unless num is provisional.
func (c *Context) advance(k kind, num int) {
	if num < provisionalBase {
		c.next[k] = max(c.next[k], num)
	}
}

// agentRPC returns the token of an agent request id given as its raw JSON
// (a number's text, or a string's decoded bytes with isString).
func (c *Context) agentRPC(id []byte, isString bool) []byte {
	if isString {
		if k, _, n := parseToken(id); n == len(id) && k == kindAgentRPC {
			return id
		}
	}
	key := string(id)
	if isString {
		key = "s" + key
	} else {
		key = "n" + key
	}
	if t, ok := c.rpc[key]; ok {
		return []byte(t)
	}
	t := c.newToken(kindAgentRPC)
	c.rpc[key] = t
	return []byte(t)
}

// parseToken reads a token at the start of s. It returns the token's kind
// (none for the path tokens and {{time}}), its number, and its length (0: no token).
// A numbered token advances nothing here; see observe.
func parseToken(s []byte) (k kind, num, length int) {
	if len(s) < 6 || s[0] != '{' || s[1] != '{' {
		return none, 0, 0
	}
	for _, t := range plainTokens {
		if bytes.HasPrefix(s, t) {
			return none, 0, len(t)
		}
	}
	colon := bytes.IndexByte(s[:min(len(s), 2+len("agentRpc")+1)], ':')
	if colon < 0 {
		return none, 0, 0
	}
	k = kindOf(s[2:colon])
	if k == none {
		return none, 0, 0
	}
	i := colon + 1
	for i < len(s) && i-colon-1 < maxTokenDigits && s[i] >= '0' && s[i] <= '9' {
		num = num*10 + int(s[i]-'0')
		i++
	}
	if i == colon+1 || s[colon+1] == '0' || i+2 > len(s) || s[i] != '}' || s[i+1] != '}' {
		return none, 0, 0
	}
	return k, num, i + 2
}

func kindOf(name []byte) kind {
	for k, n := range kindNames {
		if string(name) == n {
			return kind(k)
		}
	}
	return none
}

// observe advances the counters past every numbered token inside s, so a
// new value never reuses a number that is already taken.
func (c *Context) observe(s []byte) {
	for i := bytes.IndexByte(s, '{'); i >= 0; {
		k, num, n := parseToken(s[i:])
		if n == 0 {
			n = 1
		} else if k != none {
			c.advance(k, num)
		}
		j := bytes.IndexByte(s[i+n:], '{')
		if j < 0 {
			return
		}
		i += n + j
	}
}

// Bind makes raw stand for token (a numbered token such as
// "{{toolCall:1}}") from now on, unless raw has a token already, and
// advances the token's counter past its number: a value handed to the
// agent in place of a token normalizes back to that token. It returns
// raw's token.
func (c *Context) Bind(raw, token string) (string, error) {
	c.prepare()
	k, num, n := parseToken([]byte(token))
	if n != len(token) || k == none {
		return "", fmt.Errorf("normalize: bind: %q is not a numbered token", token)
	}
	if t, ok := c.tokens[raw]; ok {
		return t, nil
	}
	c.advance(k, num)
	c.keep(raw, token)
	return token, nil
}

// Provisional makes the values that get a token from now on get a
// provisional one (on), or the next number as usual (off). A provisional
// token ("{{id:900000001}}") stands for its value until Renumber gives the
// value the token it has elsewhere (a recording whose calls came in
// another order), and its number never moves the counters: the values
// numbered after it get the numbers they would have had without it. The
// JSON-RPC ids of the agent's own requests are never provisional.
func (c *Context) Provisional(on bool) {
	c.prepare()
	c.prov = on
}

// IsProvisional reports whether token is a provisional token (see
// Provisional), renumbered or not.
func IsProvisional(token string) bool {
	k, num, n := parseToken([]byte(token))
	return n == len(token) && k != none && num > provisionalBase
}

// Renumber makes the value of the provisional token from stand for to (a
// numbered token of the same kind) from now on, and advances to's counter;
// from then reads as to in Value. It fails as CanRenumber does. Renumbering
// from to the token it was renumbered to before changes nothing.
func (c *Context) Renumber(from, to string) error {
	if err := c.CanRenumber(from, to); err != nil || c.moved[from] == to {
		return err
	}
	raw := c.values[from]
	delete(c.values, from)
	c.moved[from] = to
	c.tokens[raw], c.values[to] = to, raw
	k, num, _ := parseToken([]byte(to))
	c.advance(k, num)
	return nil
}

// Settle renumbers the provisional token from to the next number of its
// kind, as if its value had come without Provisional, and returns that
// token (the one it was renumbered to before, if it was).
func (c *Context) Settle(from string) (string, error) {
	c.prepare()
	if t, ok := c.moved[from]; ok {
		return t, nil
	}
	k, _, n := parseToken([]byte(from))
	if n != len(from) || k == none {
		return "", fmt.Errorf("normalize: settle: %q is not a provisional token", from)
	}
	to := "{{" + kindNames[k] + ":" + strconv.Itoa(c.next[k]+1) + "}}"
	return to, c.Renumber(from, to)
}

// CanRenumber reports why Renumber(from, to) would fail: from is not a
// provisional token that stands for a value (or was renumbered to to), to
// not a token of its kind, or to stands for another value already.
func (c *Context) CanRenumber(from, to string) error {
	c.prepare()
	if t, ok := c.moved[from]; ok {
		if t != to {
			return fmt.Errorf("normalize: renumber: %q is %q already", from, t)
		}
		return nil
	}
	fk, fnum, fn := parseToken([]byte(from))
	k, num, n := parseToken([]byte(to))
	switch {
	case fn != len(from) || fk == none || fnum <= provisionalBase:
		return fmt.Errorf("normalize: renumber: %q is not a provisional token", from)
	case n != len(to) || k != fk || num >= provisionalBase:
		return fmt.Errorf("normalize: renumber: %q is not a %s token", to, kindNames[fk])
	}
	raw, ok := c.values[from]
	if !ok {
		return fmt.Errorf("normalize: renumber: %q stands for nothing", from)
	}
	if v, ok := c.values[to]; ok && v != raw {
		return fmt.Errorf("normalize: renumber: %q stands for another value", to)
	}
	return nil
}

// Identify returns the token of raw as an identity of kind ("session",
// "toolCall", "message", "approval", "id"), handing out the next number
// when raw has none yet: the harness names a session the moment
// session/new answers, before any payload that carries its id.
func (c *Context) Identify(kindName, raw string) (string, error) {
	c.prepare()
	k := kindOf([]byte(kindName))
	if k == none || k == kindAgentRPC {
		return "", fmt.Errorf("normalize: identify: unknown kind %q", kindName)
	}
	return string(c.identity(k, []byte(raw))), nil
}

// Value returns the raw value a numbered token stands for in this
// Context, if any value got it.
func (c *Context) Value(token string) (string, bool) {
	if t, ok := c.moved[token]; ok {
		token = t
	}
	v, ok := c.values[token]
	return v, ok
}
