// Package probe is the analysis of `acpsnap probe`: given what N runs of
// each scenario produced (normalized stdout, model requests and their
// statuses, the calls the scripted model received, step and shutdown
// timings, files written in the private HOME) and what the sandbox saw on
// the network, it says what makes the agent nondeterministic (what varies
// between runs, today's date, a retried error call), with a line to paste
// into acpsnap.yml for each finding. It is pure: no I/O, no clock (the
// runs' time is Input.Now).
//
//	rep := probe.Analyze(probe.Input{Runs: runs, Ignore: corpus.Model.Ignore})
//	rep.WriteText(os.Stdout)
//	if !rep.Clean { … }
//
// docs/agents.md, "Adding an agent", walks through using it.
package probe

import (
	"net"
	"strings"
	"time"
)

// Input is what the runs produced.
type Input struct {
	// Runs are the N runs of each scenario probed, in the corpus's
	// shutdown policy.
	Runs []Run
	// Others are runs with the other shutdown policy (SIGTERM at once
	// when the corpus says eof, stdin EOF when it says term), one per
	// scenario, for their shutdown only; nil: none.
	Others []Run
	// Term: the corpus says shutdown: term.
	Term bool
	// Ignore is the corpus's model.ignore: request parts already left out.
	Ignore []string
	// Lookups and Connects are the names looked up and the addresses
	// connected to during all the runs, with their counts (the sandbox's
	// DNS stand-in and connection log).
	Lookups, Connects []Count
	// ExpectHosts are the corpus's probe.expectHosts: names looked up or
	// IPv4 addresses connected to that no setting stops, acknowledged
	// rather than counted against a clean report.
	ExpectHosts []string
	// Now is when the runs ran: a date near it in a request or on stdout
	// is today's, which the next day breaks. Zero: dates are not looked
	// for.
	Now time.Time
}

// Run is one run of a scenario.
type Run struct {
	Scenario string    // its name; runs of one scenario are compared with each other
	Stdout   []byte    // normalized JSONL, the corpus's rules applied
	Requests []Request // the model requests, normalized, in call order
	Calls    []Call    // what the scripted model received, in arrival order
	Steps    []Step
	Shutdown Shutdown
	Files    []File // written in the private HOME; nil: unknown (the run failed)
	Err      string // the run's error; "": none
}

// Request is one normalized model request.
type Request struct {
	Method, Path string
	Header       map[string]string
	Body         []byte
	Status       int // the status it was answered with; 0: unknown
}

// Call is one request the scripted model received.
type Call struct {
	At     time.Duration // since the agent started
	Done   time.Duration // when its answer was written, since the agent started; 0: never
	Served bool          // it claimed an entry of the script
	Path   string
	Body   []byte // raw
}

// Step is one step of the client script, timed from the agent's start.
type Step struct {
	Op         string
	Start, End time.Duration
	Failed     bool // the run stopped at this step
}

// stopped reports whether the run stopped at a failed step: it did not
// run its whole script, so it is no run to compare.
func (r Run) stopped() bool {
	return len(r.Steps) > 0 && r.Steps[len(r.Steps)-1].Failed
}

// Shutdown is how the agent ended (harness.Shutdown).
type Shutdown struct {
	How              string
	EOF, Term, Group time.Duration
	Leftovers        bool
}

// File is a file the agent wrote in its private HOME.
type File struct {
	Path  string `json:"path"` // a folder ends in "/"
	Size  int64  `json:"size"`
	Files int    `json:"files,omitempty"` // in a folder (Report.Files): how many
}

// Count is one counted name or address.
type Count struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}

// Report is the analysis.
type Report struct {
	// Scenarios are the scenarios probed, in order.
	Scenarios []string `json:"scenarios"`
	Runs      int      `json:"runs"`
	// Compared is how many runs ran their whole script: the others (their
	// errors are in Errors) are left out of every comparison.
	Compared int        `json:"compared"`
	Varies   []Variance `json:"varies"`
	// Dates are the dates and times near Input.Now in a run's requests
	// or stdout: the same in every run of a day, different the next.
	Dates     []Variance `json:"dates"`
	Retries   []Retry    `json:"retries"`
	Extra     []Extra    `json:"extraCalls"`
	Network   Network    `json:"network"`
	Lifecycle Lifecycle  `json:"lifecycle"`
	Files     []File     `json:"files"`
	Errors    []string   `json:"errors"`
	// Clean: nothing varies, no date, no retried error, no call beyond
	// the script, no network attempt, no run failed, no shutdown change
	// suggested or problem.
	Clean bool `json:"clean"`
}

// Variance is one value that differs between runs.
type Variance struct {
	Scenario string   `json:"scenario,omitempty"` // when the report covers several
	Where    string   `json:"where"`              // "stdout" or "request"
	At       string   `json:"at"`                 // which line or call
	Path     string   `json:"path"`               // the JSON path inside it; "": the line or call itself
	Values   []string `json:"values"`
	Suggest  Setting  `json:"suggest"`
}

// Setting is a line of acpsnap.yml that would settle a finding.
type Setting struct {
	Key  string `json:"key"`  // "scrub", "model.ignore", "floating", "agent.shutdown"; "": none found
	Item string `json:"item"` // the list item or value, as YAML
}

// Extra is one model call the script did not have.
type Extra struct {
	Scenario string `json:"scenario,omitempty"` // when the report covers several
	Run      int    `json:"run"`                // from 1
	Position int    `json:"position"`           // its place among the run's calls, from 1
	Path     string `json:"path"`
	Summary  string `json:"summary"`
	When     string `json:"when"`       // the last step that began before it
	WithTurn bool   `json:"concurrent"` // it arrived while a call of the script was being answered
}

// Network is what the runs tried beyond the model endpoint. Connects are
// "tcp 192.0.2.1:443", "udp 198.51.100.7:53".
type Network struct {
	Lookups  []Count `json:"lookups"`
	Connects []Count `json:"connects"`
	// ExpectedLookups and ExpectedConnects are the attempts of
	// Input.ExpectHosts: shown, not counted against Clean.
	ExpectedLookups  []Count `json:"expectedLookups"`
	ExpectedConnects []Count `json:"expectedConnects"`
	// Unseen are the expected hosts no run tried.
	Unseen []string `json:"unseen"`
}

// Analyze compares the runs of each scenario and builds the report.
func Analyze(in Input) Report {
	r := Report{Runs: len(in.Runs), Files: files(in.Runs), Errors: errorsOf(in)}
	groups := groupRuns(in.Runs)
	var whole []Run
	for _, g := range groups {
		r.Scenarios = append(r.Scenarios, g.name)
		whole = append(whole, g.runs...)
		r.Varies = append(r.Varies, g.variance(in.Ignore)...)
		r.Extra = append(r.Extra, g.extraCalls()...)
		r.Retries = append(r.Retries, g.retries()...)
	}
	r.Compared = len(whole)
	r.Dates = dates(groups, in.Now)
	r.Network = network(in.Lookups, in.Connects, in.ExpectHosts)
	in.Runs = whole
	r.Lifecycle = lifecycle(in)
	r.Scenarios, r.Varies, r.Dates, r.Retries, r.Extra = nonNil(r.Scenarios), nonNil(r.Varies), nonNil(r.Dates), nonNil(r.Retries), nonNil(r.Extra)
	r.Files, r.Errors = nonNil(r.Files), nonNil(r.Errors)
	n := &r.Network
	n.Lookups, n.Connects, n.ExpectedLookups, n.ExpectedConnects, n.Unseen = nonNil(n.Lookups), nonNil(n.Connects),
		nonNil(n.ExpectedLookups), nonNil(n.ExpectedConnects), nonNil(n.Unseen)
	r.Clean = len(r.Varies)+len(r.Dates)+len(r.Retries) == 0 && len(r.Extra) == 0 && len(r.Network.Lookups)+len(r.Network.Connects) == 0 &&
		len(r.Errors) == 0 && r.Compared > 0 && r.Lifecycle.Suggest.Key == "" && r.Lifecycle.Problem == "" && r.Lifecycle.Leftovers == 0
	return r
}

// group is the runs of one scenario that ran their whole script.
type group struct {
	name  string
	runs  []Run
	multi bool // the report covers several scenarios: findings name theirs
}

// groupRuns are the whole runs by scenario, in the order the scenarios
// first come.
func groupRuns(runs []Run) []group {
	var out []group
	index := map[string]int{}
	for _, r := range runs {
		i, ok := index[r.Scenario]
		if !ok {
			i = len(out)
			index[r.Scenario] = i
			out = append(out, group{name: r.Scenario})
		}
		if !r.stopped() {
			out[i].runs = append(out[i].runs, r)
		}
	}
	for i := range out {
		out[i].multi = len(out) > 1
	}
	return out
}

// named is vs, each naming the scenario when the report covers several.
func (g group) named(vs []Variance) []Variance {
	for i := range vs {
		if g.multi {
			vs[i].Scenario = g.name
		}
	}
	return vs
}

// variance is what differs between the runs of the scenario.
func (g group) variance(ignore []string) []Variance {
	return g.named(append(stdoutVariance(g.runs), requestVariance(g.runs, ignore)...))
}

// extraCalls are the scenario's calls beyond its script.
func (g group) extraCalls() []Extra {
	out := extraCalls(g.runs)
	for i := range out {
		if g.multi {
			out[i].Scenario = g.name
		}
	}
	return out
}

// retries are the scenario's retried error calls, by run.
func (g group) retries() []Retry {
	var out []Retry
	for i, r := range g.runs {
		for _, x := range Retries(r.Requests) {
			x.Run = i + 1
			if g.multi {
				x.Scenario = g.name
			}
			out = append(out, x)
		}
	}
	return out
}

// files is the union of the files the runs wrote, by path (the largest
// size seen), those deeper than filesDepth folders summed up by their
// folder at that depth (a cache of a hundred files is one line).
func files(runs []Run) []File {
	size := map[string]int64{}
	for _, run := range runs {
		for _, f := range run.Files {
			size[f.Path] = max(size[f.Path], f.Size)
		}
	}
	group := map[string]*File{}
	var out []File
	for path, n := range size {
		parts := strings.Split(path, "/")
		if len(parts) <= filesDepth {
			group[path] = &File{Path: path, Size: n}
			continue
		}
		key := strings.Join(parts[:filesDepth], "/") + "/"
		if g, ok := group[key]; ok {
			g.Size += n
			g.Files++
			continue
		}
		group[key] = &File{Path: key, Size: n, Files: 1}
	}
	for _, g := range group {
		out = append(out, *g)
	}
	sortBy(out, func(f File) string { return f.Path })
	return out
}

// filesDepth is the folder depth below which written files are summed up.
const filesDepth = 2

// errorsOf lists each distinct error of the runs once (not the other
// runs': their shutdown differs on purpose), with its scenario when there
// are several.
func errorsOf(in Input) []string {
	var out []string
	multi := len(groupRuns(in.Runs)) > 1
	for _, run := range in.Runs {
		e := run.Err
		if multi && e != "" {
			e = run.Scenario + ": " + e
		}
		if e != "" && !contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// network drops what is the model endpoint's own (loopback names) and
// sets apart the attempts of the expected hosts.
func network(lookups, connects []Count, expect []string) Network {
	var n Network
	seen := map[string]bool{}
	expected := func(host string) bool {
		for _, e := range expect {
			if strings.EqualFold(strings.TrimSuffix(e, "."), host) {
				seen[e] = true
				return true
			}
		}
		return false
	}
	for _, c := range lookups {
		switch {
		case c.Key == "localhost" || c.Key == "localhost.localdomain":
		case expected(c.Key):
			n.ExpectedLookups = append(n.ExpectedLookups, c)
		default:
			n.Lookups = append(n.Lookups, c)
		}
	}
	for _, c := range connects {
		if expected(connectHost(c.Key)) {
			n.ExpectedConnects = append(n.ExpectedConnects, c)
		} else {
			n.Connects = append(n.Connects, c)
		}
	}
	for _, e := range expect {
		if !seen[e] {
			n.Unseen = append(n.Unseen, e)
		}
	}
	return n
}

// connectHost is the address of a connect ("tcp 192.0.2.1:443": 192.0.2.1).
func connectHost(key string) string {
	_, addr, _ := strings.Cut(key, " ")
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// nonNil is s, or an empty slice: -json shows [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
