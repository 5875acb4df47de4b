package cli

// acpsnap probe: a scenario run N times against its scripted model in the
// loopback-only namespace, and what made the runs differ
// (internal/probe analyses; check.Probe runs).

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/sandbox"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// probeFlags are the flags and arguments of probe.
type probeFlags struct {
	dir, agent, run string
	names           []string
	n               int
	json            bool
	timeout, grace  time.Duration
}

func (e *env) parseProbe(args []string) (*probeFlags, error) {
	f := &probeFlags{}
	fs := e.flags("probe")
	fs.StringVar(&f.dir, "dir", "", "the corpus `folder`, whose acpsnap.yml names the agent and its dialect (default: found as run finds it)")
	fs.StringVar(&f.agent, "agent", "", "the agent `command` line (default: acpsnap.yml's)")
	fs.StringVar(&f.run, "run", "", "probe only the scenarios whose name matches this `regexp` (without NAMEs)")
	fs.IntVar(&f.n, "n", 3, "how many runs of each scenario to compare")
	fs.BoolVar(&f.json, "json", false, "print the report as one JSON object")
	fs.DurationVar(&f.timeout, "timeout", 0, fmt.Sprintf("default wait of a step (0: acpsnap.yml's agent.timeout, else %s)", harness.DefaultStepTimeout))
	fs.DurationVar(&f.grace, "grace", 0, fmt.Sprintf("how long the agent gets to exit at each stage of shutdown (0: acpsnap.yml's agent.grace, else %s)", harness.DefaultGrace))
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if f.n < 2 {
		return nil, usagef("probe: -n %d: want at least 2 runs to compare", f.n)
	}
	f.names = fs.Args()
	if len(f.names) > 0 && f.run != "" {
		return nil, usagef("probe: -run and scenario NAMEs: choose one")
	}
	var err error
	if f.dir, err = findCorpus(f.dir, false); err != nil {
		return nil, err
	}
	return f, nil
}

// scenarios are the scenarios to probe: the NAMEs, else every scenario of
// the corpus that -run selects.
func (f *probeFlags) scenarios() ([]string, error) {
	if len(f.names) > 0 {
		for _, n := range f.names {
			if _, err := os.Stat(filepath.Join(f.dir, n, scenario.ManifestFile)); err != nil {
				return nil, usagef("probe: no scenario %s (%v)", filepath.Join(f.dir, n), err)
			}
		}
		return f.names, nil
	}
	re, err := regexp.Compile(f.run)
	if err != nil {
		return nil, usagef("probe: -run: %v", err)
	}
	all, err := scenario.Names(f.dir)
	if err != nil {
		return nil, usagef("probe: %v", err)
	}
	var out []string
	for _, n := range all {
		if re.MatchString(n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, usagef("probe: no scenario of %s matches -run %q", f.dir, f.run)
	}
	return out, nil
}

// probeCmd runs probe in a loopback-only namespace: the runs inside it,
// then the report with what the namespace saw.
func (e *env) probeCmd(args []string) int {
	f, err := e.parseProbe(args)
	if err != nil {
		return e.exit(err)
	}
	var in probe.Input
	return e.offlineThen(os.Args, false, func() int {
		var err error
		if in, err = e.probeRuns(f); err != nil {
			return e.exit(err)
		}
		return ExitOK
	}, func(a sandbox.Attempts, code int) int {
		if code != ExitOK {
			return code
		}
		in.Lookups, in.Connects = counts(a.Lookups), counts(a.Connects)
		return e.printProbe(probe.Analyze(in), f.json)
	})
}

// printProbe prints the report and returns its exit code.
func (e *env) printProbe(rep probe.Report, asJSON bool) int {
	if asJSON {
		b, err := strictjson.Marshal(rep)
		if err != nil {
			return e.exit(err)
		}
		e.stdout.Write(b)
	} else {
		// The report names what the agent chose: the hosts it looked up,
		// the files it wrote, its errors.
		var sb strings.Builder
		rep.WriteText(&sb)
		io.WriteString(e.stdout, console.Text(sb.String()))
	}
	if !rep.Clean {
		return ExitFailed
	}
	return ExitOK
}

// probeRuns runs each scenario f.n times with the corpus's shutdown
// policy, then once with the other.
func (e *env) probeRuns(f *probeFlags) (probe.Input, error) {
	names, err := f.scenarios()
	if err != nil {
		return probe.Input{}, err
	}
	corpus, err := scenario.LoadCorpus(f.dir)
	if err != nil {
		return probe.Input{}, usagef("%v", err)
	}
	if corpus == nil || corpus.Native() {
		return probe.Input{}, usagef("probe: %s has no acpsnap.yml naming a model dialect: probe serves the agent a scripted model over HTTP (start one with 'acpsnap init -dir %s -dialect D -- COMMAND…')", f.dir, f.dir)
	}
	agent, err := e.agentCommand(f.agent, corpus)
	if err != nil {
		return probe.Input{}, err
	}
	ctx, stop := interruptible()
	defer stop()
	cfg := check.Config{Settings: harness.Settings{Agent: agent, Environ: e.scanEnviron(), StepTimeout: f.timeout, Grace: f.grace, Acpsnap: acpsnapBinary()}, Corpus: corpus}
	e.offlineSettings(&cfg.Settings, false)
	other := *corpus // the other shutdown policy, for its shutdown only
	other.Agent.Shutdown = scenario.ShutdownTerm
	if corpus.Agent.Shutdown == scenario.ShutdownTerm {
		other.Agent.Shutdown = scenario.ShutdownEOF
	}
	in := probe.Input{Term: corpus.Agent.Shutdown == scenario.ShutdownTerm, Ignore: corpus.Model.Ignore, ExpectHosts: corpus.Probe.ExpectHosts, Now: time.Now()}
	for _, name := range names {
		sdir := filepath.Join(f.dir, name)
		model, err := probeModel(sdir)
		if err != nil {
			return probe.Input{}, err
		}
		for i := 0; i <= f.n; i++ {
			cfg.Corpus = corpus
			if i == f.n {
				cfg.Corpus = &other
			}
			fmt.Fprintf(e.stderr, "acpsnap: probe %s: run %d of %d\n", name, i+1, f.n+1)
			p := check.Probe(ctx, sdir, model, cfg)
			if p.Result == nil {
				return probe.Input{}, fmt.Errorf("probe: %s: %w", name, p.Err)
			}
			if ctx.Err() != nil {
				return probe.Input{}, fmt.Errorf("probe: interrupted")
			}
			r := probeRun(p)
			r.Scenario = name
			if i == f.n {
				r.Stdout = nil // compared for its shutdown only
				in.Others = append(in.Others, r)
			} else {
				if len(r.Stdout) < len(p.Stdout) {
					fmt.Fprintf(e.stderr, "acpsnap: probe %s: run %d printed %d MiB on stdout; its first %d MiB are compared\n", name, i+1, len(p.Stdout)>>20, probeStdoutMax>>20)
				}
				in.Runs = append(in.Runs, r)
			}
		}
	}
	return in, nil
}

// probeTextAnswer is the model of a scenario without model.json: a short
// text answer for each prompt.
const probeTextAnswer = `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"Hello."},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`

// probeModel is the scenario's model.json, else one text answer per prompt
// of its input.json.
func probeModel(sdir string) (replay.ServerConfig, error) {
	if _, err := os.Stat(filepath.Join(sdir, scenario.ModelFile)); err == nil {
		m, err := check.LoadModel(sdir)
		if err != nil {
			return m, usagef("probe: %v", err)
		}
		return m, nil
	}
	in, err := scenario.LoadInput(filepath.Join(sdir, scenario.InputFile))
	if err != nil {
		return replay.ServerConfig{}, usagef("probe: %v", err)
	}
	var entries []string
	for _, s := range in.Steps {
		if strings.HasPrefix(s.Op, "prompt") {
			entries = append(entries, probeTextAnswer)
		}
	}
	doc := "[" + strings.Join(entries, ",") + "]"
	return replay.DecodeModel(bytes.NewReader([]byte(doc)), "probe's text answer")
}

// probeStdoutMax bounds the stdout of one run that probe keeps to compare
// (its first lines, up to a line end): the runs are held together, and an
// agent that floods its stdout would otherwise hold n times the harness's
// cap.
const probeStdoutMax = 16 << 20

// probeRun is what the analysis needs of one run: a copy of its stdout
// within probeStdoutMax, so the run's own goes with it.
func probeRun(p check.Probed) probe.Run {
	res := p.Result
	stdout := p.Stdout
	if len(stdout) > probeStdoutMax {
		stdout = stdout[:bytes.LastIndexByte(stdout[:probeStdoutMax], '\n')+1]
	}
	r := probe.Run{Stdout: bytes.Clone(stdout), Shutdown: probe.Shutdown(res.Shutdown)}
	if p.Err != nil {
		r.Err, _, _ = strings.Cut(p.Err.Error(), "\nagent stderr")
	}
	for _, s := range res.Steps {
		start := s.Start.Sub(res.Started)
		r.Steps = append(r.Steps, probe.Step{Op: s.Op, Start: start, End: start + s.Duration, Failed: s.Failed})
	}
	r.Requests = p.Requests
	for _, c := range p.Calls {
		call := probe.Call{At: c.At.Sub(res.Started), Served: c.Served, Path: c.Path, Body: c.Body}
		if !c.Done.IsZero() {
			call.Done = c.Done.Sub(res.Started)
		}
		r.Calls = append(r.Calls, call)
	}
	for _, h := range p.Home {
		r.Files = append(r.Files, probe.File{Path: h.Path, Size: h.Size})
	}
	return r
}

func counts(cs []sandbox.Count) []probe.Count {
	out := make([]probe.Count, len(cs))
	for i, c := range cs {
		out[i] = probe.Count{Key: c.Key, N: c.N}
	}
	return out
}
