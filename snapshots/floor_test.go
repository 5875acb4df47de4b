package snapshots_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// BenchmarkReplay is each scenario's replay against its floor, alternated in
// one loop so that both share the machine's noise: check.Check replays the
// scenario as a serial acpsnap run does (the corpus read once, as for its
// guards; the private roots recycled; the harness, normalize, compare), and
// the floor drives the same steps straight
// at the same agent, with the environment and fixtures the harness gives it,
// through a minimal ACP client (direct). It reports the median time of each
// side (harness-ms, direct-ms) and the median of the rounds' ratios
// (ratio: harness over direct); scripts/ratio prints them and their mean.
// Scenarios the minimal client cannot drive (drivable says why) are left out.
func BenchmarkReplay(b *testing.B) {
	folders, err := check.ReadFolders(".", nil)
	if err != nil {
		b.Fatal(err)
	}
	pool := &harness.RootPool{}
	defer pool.Close()
	cfg := check.Config{Settings: harness.Settings{Agent: agentCommand, Acpsnap: acpsnaptest.MCPProxy(b), Pool: pool}, Folders: folders}
	for _, name := range folders.Names {
		floor, err := newDirect(name)
		if err != nil {
			b.Fatal(err)
		}
		if floor == nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			var viaHarness, direct, ratios []float64
			for b.Loop() {
				var h, d time.Duration
				if len(ratios)%2 == 0 { // each side goes first every other round
					h = replayOnce(b, name, cfg)
				}
				d = floor.run(b, nil)
				if len(ratios)%2 == 1 {
					h = replayOnce(b, name, cfg)
				}
				viaHarness, direct = append(viaHarness, float64(h)/1e6), append(direct, float64(d)/1e6)
				ratios = append(ratios, float64(h)/float64(d))
			}
			b.ReportMetric(median(viaHarness), "harness-ms")
			b.ReportMetric(median(direct), "direct-ms")
			b.ReportMetric(median(ratios), "ratio")
		})
	}
}

// replayOnce checks the scenario name once, as a serial acpsnap run does, and
// returns how long it took.
func replayOnce(b *testing.B, name string, cfg check.Config) time.Duration {
	t := time.Now()
	if o := check.Check(context.Background(), name, cfg); o.Status != check.Passed {
		b.Fatalf("%s: %s %s\n%v\n%s", name, o.Status, o.Reason, o.Err, o.Diff)
	}
	return time.Since(t)
}

// median is the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// TestDirect drives every scenario the floor can drive once, straight at
// the agent, and checks that it did the scenario's whole work: the agent's
// stdout and session logs, normalized, are the committed fixtures, and its
// replay report says every model call of the fixtures was served.
func TestDirect(t *testing.T) {
	names, err := scenario.Names(".")
	if err != nil {
		t.Fatal(err)
	}
	driven := 0
	for _, name := range names {
		d, err := newDirect(name)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			continue
		}
		driven++
		t.Run(name, func(t *testing.T) {
			var got run
			d.run(t, &got)
			want, err := check.NormalizeFixture(scenario.Load(d.dir).Fixture)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range want.Logs { // the system prompt and tools, kept once in pins/
				if want.Logs[i], err = httplog.OpenPins(scenario.PinsDir).Expand(l); err != nil {
					t.Fatal(err)
				}
			}
			c := normalize.NewContext(got.cwd)
			c.AddPath("home", got.home)
			c.AddPath("root", got.root)
			norm, err := check.NormalizeSide(c, got.stdout.Bytes(), got.logs, "stdout", got.names)
			if err != nil {
				t.Fatal(err)
			}
			scrub := func(t *scenario.Transcript) []string { // the manifest's rules, as check applies them
				files := append([][]byte{t.Stdout}, t.Logs...)
				out := make([]string, len(files))
				for i, b := range files {
					for _, rule := range d.scrub {
						b = rule.Regexp().ReplaceAll(b, []byte(rule.Replace))
					}
					out[i] = string(b)
				}
				return out
			}
			if diff := gocmp.Diff(scrub(want), scrub(norm)); diff != "" {
				t.Errorf("stdout and session logs, driven directly (-want +got):\n%s", diff)
			}
		})
	}
	if driven < len(names)/2 {
		t.Errorf("the floor drives %d of %d scenarios, want at least half", driven, len(names))
	}
}

// TestDrivable: what the minimal client cannot do, it says, and a scenario
// that needs it is left to the harness.
func TestDrivable(t *testing.T) {
	type testCase struct {
		name, input, want string
	}
	for _, tc := range []testCase{
		{"prompts", `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"hi"},{"op":"promptExpectError","text":"x"}],"permissionAnswers":[{"kind":"allow_once"}],"clientCapabilities":{"fs":{"readTextFile":true}}}`, ""},
		{"a wait", `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"hi"},{"op":"waitForFile","path":"a"}]}`, "op waitForFile"},
		{"terminals", `{"steps":[{"op":"initialize"}],"clientCapabilities":{"terminal":true}}`, "the client's terminals"},
		{"mcp", `{"steps":[{"op":"newSession","mcpServers":[{"name":"e","command":"x"}]}]}`, "MCP servers"},
		{"answers", `{"steps":[{"op":"initialize"}],"clientAnswers":[{"method":"x/y","result":{}}]}`, "clientAnswers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), scenario.InputFile)
			if err := os.WriteFile(p, []byte(tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := scenario.LoadInput(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := drivable(&scenario.Manifest{}, in); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("drivable = %q, want %q", got, tc.want)
			}
		})
	}
}

// direct is one scenario as the floor drives it: no harness, no recorded
// stdout, no private roots reused, no comparison; just the agent started
// with the environment the harness gives it in replay (harness.AgentEnv),
// the steps sent by the ACP SDK's client side, and the agent's exit.
type direct struct {
	dir   string // the scenario folder, absolute
	in    *scenario.Input
	caps  acp.ClientCapabilities
	env   harness.AgentEnv // without the run's folders
	scrub []scenario.ScrubRule
}

// newDirect is the floor of the scenario folder name, or nil when the
// minimal client cannot drive it.
func newDirect(name string) (*direct, error) {
	dir, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	s := scenario.Load(dir)
	if err := errors.Join(s.ManifestErr, s.InputErr); err != nil {
		return nil, err
	}
	m := s.Manifest
	if drivable(m, s.Input) != "" {
		return nil, nil
	}
	d := &direct{dir: dir, in: s.Input, scrub: m.Scrub, env: harness.AgentEnv{Permission: m.Permission, Env: m.Env,
		FixtureChildren: scenario.ChildLogs(dir)}}
	if s.Input.ClientCapabilities != nil {
		if err := json.Unmarshal(s.Input.ClientCapabilities, &d.caps); err != nil {
			return nil, err
		}
	}
	if f := filepath.Join(dir, scenario.SessionFile); fileExists(f) {
		d.env.Fixture = f
	}
	if f := filepath.Join(dir, scenario.OverrideFile); fileExists(f) {
		d.env.Override = f
	}
	if m.Tools != nil {
		d.env.ToolCassette = filepath.Join(dir, scenario.ToolCassetteFile)
		d.env.ToolInclude, _ = json.Marshal(m.Tools.Include)
	}
	if m.Subagents != nil {
		d.env.SubagentCassette = filepath.Join(dir, scenario.SubagentCassetteFile)
		d.env.SubagentOptions, _ = json.Marshal(m.Subagents.Cassette)
	}
	return d, nil
}

// drivable says why the minimal client cannot drive a scenario ("": it
// can): it sends initialize, newSession and the prompts, answers
// permission requests and serves fs/*, and nothing else.
func drivable(m *scenario.Manifest, in *scenario.Input) string {
	for _, s := range in.Steps {
		switch {
		case len(s.MCPServers) > 0:
			return "MCP servers (the harness's cassette proxies)"
		case s.Op == scenario.OpInitialize, s.Op == scenario.OpNewSession, s.Op == scenario.OpPrompt,
			s.Op == scenario.OpPromptContent, s.Op == scenario.OpPromptExpectError:
		default:
			return "op " + s.Op
		}
	}
	if in.ClientCapabilities != nil && bytes.Contains(in.ClientCapabilities, []byte(`"terminal"`)) {
		return "the client's terminals"
	}
	if len(in.ClientAnswers) > 0 {
		return "clientAnswers"
	}
	if len(m.Agent.Env) > 0 {
		return "agent.env templates"
	}
	return ""
}

// run is what a direct drive leaves for TestDirect to compare: the agent's
// stdout, its session logs (the primary first, then by creation, as the
// harness orders them) and its folders.
type run struct {
	stdout          bytes.Buffer
	logs            [][]byte
	names           []string
	cwd, home, root string
}

// run drives the scenario once in fresh folders, made and removed outside
// the time it returns: the agent's start, the steps, closing its stdin and
// its exit. It fails tb unless every step did what input.json asks and the
// agent's replay report says the whole fixture was served. With out, it
// keeps the agent's stdout and logs there.
func (d *direct) run(tb testing.TB, out *run) time.Duration {
	tb.Helper()
	root, err := os.MkdirTemp("", "acpsnap-direct-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(root)
	h := d.env
	h.Home, h.TmpDir, h.SessionsDir, h.Root = filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "sessions"), root
	cwd := filepath.Join(root, "workspace")
	for _, dir := range []string{h.Home, h.TmpDir, h.SessionsDir, cwd} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	if ws := filepath.Join(d.dir, "workspace"); fileExists(ws) {
		if err := safefile.CopyTree(ws, cwd, safefile.TreeConfig{}); err != nil {
			tb.Fatal(err)
		}
	}
	var stdout io.Writer
	if out != nil {
		stdout = &out.stdout
	}
	t := time.Now()
	primary, err := d.drive(h.Environ(), cwd, stdout)
	if err != nil {
		tb.Fatalf("%s, driven directly: %v", filepath.Base(d.dir), err)
	}
	took := time.Since(t)
	rep, err := harvest.ReadReport(filepath.Join(h.SessionsDir, agentenv.ReportFile))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range rep.Fixtures {
		if f.Left > 0 {
			tb.Errorf("%s, driven directly: fixture %s: %d model calls never made", filepath.Base(d.dir), f.Fixture, f.Left)
		}
	}
	for _, e := range rep.Errors {
		tb.Errorf("%s, driven directly: replay error: %s", filepath.Base(d.dir), e)
	}
	if out != nil {
		out.cwd, out.home, out.root = cwd, h.Home, root
		out.logs, out.names = readLogs(tb, h.SessionsDir, primary)
	}
	return took
}

// readLogs reads the session logs under sessions, the primary session's
// first, then by createdAt, then id.
func readLogs(tb testing.TB, sessions string, primary acp.SessionId) (logs [][]byte, names []string) {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(sessions, "*", sessionlog.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	type log struct {
		raw    []byte
		header sessionlog.Header
	}
	var all []log
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		l := log{raw: raw}
		first, _, _ := bytes.Cut(raw, []byte("\n"))
		if err := json.Unmarshal(first, &l.header); err != nil {
			tb.Fatalf("%s:1: %v", p, err)
		}
		all = append(all, l)
	}
	slices.SortStableFunc(all, func(a, b log) int {
		if (a.header.ID == string(primary)) != (b.header.ID == string(primary)) {
			if a.header.ID == string(primary) {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.header.CreatedAt, b.header.CreatedAt), cmp.Compare(a.header.ID, b.header.ID))
	})
	for i, l := range all {
		logs, names = append(logs, l.raw), append(names, scenario.LogName(i))
	}
	return logs, names
}

// drive starts the agent in cwd with env, sends the steps, closes its
// stdin and waits for it to exit. stdout, when not nil, gets a copy of the
// agent's stdout. It returns the primary session's id.
func (d *direct) drive(env []string, cwd string, stdout io.Writer) (acp.SessionId, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(agentCommand[0], agentCommand[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = cwd, env, &stderr
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	var r io.Reader
	if r, err = cmd.StdoutPipe(); err != nil {
		return "", err
	}
	if stdout != nil {
		r = io.TeeReader(r, stdout)
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	c := &minimalClient{answers: d.in.PermissionAnswers}
	conn := acp.NewClientSideConnection(c, stdin, r)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	primary, err := d.steps(ctx, conn, cwd)
	stdin.Close()
	if werr := cmd.Wait(); werr != nil {
		err = errors.Join(err, fmt.Errorf("the agent's exit: %w", werr))
	}
	if err = errors.Join(err, c.err()); err != nil {
		return "", fmt.Errorf("%w\nstderr:\n%s", err, stderr.Bytes())
	}
	return primary, nil
}

// steps sends input.json's steps over conn, in order, and returns the
// first session's id.
func (d *direct) steps(ctx context.Context, conn *acp.ClientSideConnection, cwd string) (acp.SessionId, error) {
	var session acp.SessionId
	expand := func(s string) string { return strings.ReplaceAll(s, "{{cwd}}", cwd) }
	for i, s := range d.in.Steps {
		var err error
		switch s.Op {
		case scenario.OpInitialize:
			_, err = conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
				ClientCapabilities: d.caps, ClientInfo: &acp.Implementation{Name: "acpsnap", Version: "1"}})
		case scenario.OpNewSession:
			var resp acp.NewSessionResponse
			resp, err = conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
			session = cmp.Or(session, resp.SessionId)
		case scenario.OpPrompt:
			_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: session, Prompt: []acp.ContentBlock{acp.TextBlock(expand(s.Text))}})
		case scenario.OpPromptContent:
			var blocks []acp.ContentBlock
			if err = json.Unmarshal([]byte(expand(string(s.Content))), &blocks); err == nil {
				_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: session, Prompt: blocks})
			}
		case scenario.OpPromptExpectError:
			_, err = conn.Prompt(ctx, acp.PromptRequest{SessionId: session, Prompt: []acp.ContentBlock{acp.TextBlock(expand(s.Text))}})
			var re *acp.RequestError
			if errors.As(err, &re) {
				err = nil
			} else if err == nil {
				err = errors.New("the prompt succeeded, want a JSON-RPC error")
			}
		}
		if err != nil {
			return "", fmt.Errorf("step %d (%s): %w", i+1, s.Op, err)
		}
	}
	return session, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
