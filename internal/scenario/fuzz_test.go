package scenario_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Written from docs/format.md, independently, independently of the package's own tables.
var (
	fuzzKebab   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	fuzzEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	knownOps    = []string{
		scenario.OpInitialize, scenario.OpNewSession, scenario.OpNewSessionExpectError,
		scenario.OpPrompt, scenario.OpPromptContent, scenario.OpPromptExpectError, scenario.OpPromptAndCancel,
		scenario.OpCancel, scenario.OpWaitForFile, scenario.OpWaitForTurnStart, scenario.OpWaitForTurnEnd,
		scenario.OpWaitForSubagentTurnEnd, scenario.OpWaitForUpdate,
		scenario.OpSetMode, scenario.OpSetConfigOption, scenario.OpSetModel, scenario.OpAuthenticate,
		scenario.OpListSessions, scenario.OpLoadSession, scenario.OpResumeSession, scenario.OpForkSession,
		scenario.OpCloseSession, scenario.OpRequest, scenario.OpRequestExpectError, scenario.OpNotify, scenario.OpRestartAgent,
	}
	knownKinds = []string{"allow_once", "allow_always", "reject_once", "reject_always"}
)

// corpusFiles returns the contents of snapshots/*/name with their folders.
func corpusFiles(f *testing.F, name string) (folders []string, contents [][]byte) {
	f.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "snapshots", "*", name))
	if len(paths) == 0 {
		f.Fatalf("no corpus seeds for %s", name)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		folders, contents = append(folders, filepath.Base(filepath.Dir(p))), append(contents, b)
	}
	return folders, contents
}

// writeFuzz writes b as dir/folder/name and returns the path.
func writeFuzz(t *testing.T, dir, folder, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, folder, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzLoadManifest, seeded with every committed snapshot.yml and its
// folder name: LoadManifest never panics, is deterministic, positions its
// errors, and what it accepts satisfies the docs/format.md, "Scenario folder" schema.
func FuzzLoadManifest(f *testing.F) {
	folders, contents := corpusFiles(f, scenario.ManifestFile)
	for i := range folders {
		f.Add(folders[i], contents[i])
	}
	f.Add("text-turn", []byte("version: 1\nscenario: text-turn\nreason: x\nrecording: live\nenv: {A: b}\n---\n"))
	dir := f.TempDir() // one per worker: the inputs run one at a time
	f.Fuzz(func(t *testing.T, folder string, b []byte) {
		if folder == "" || folder == "." || folder == ".." || strings.ContainsAny(folder, "/\\\x00") || len(folder) > 64 {
			folder = "x"
		}
		path := writeFuzz(t, dir, folder, scenario.ManifestFile, b)
		m, err := scenario.LoadManifest(path)
		m2, err2 := scenario.LoadManifest(path)
		sameRule := cmp.Comparer(func(a, b scenario.ScrubRule) bool { return a.Pattern == b.Pattern && a.Replace == b.Replace })
		if diff := cmp.Diff(m, m2, sameRule); diff != "" || (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("LoadManifest twice: %v, %v (-first +second):\n%s", err, err2, diff)
		}
		if err != nil {
			if m != nil || !strings.HasPrefix(err.Error(), "scenario: "+path+":") {
				t.Fatalf("LoadManifest = %v, %v; want nil and an error starting with the path", m, err)
			}
			return
		}
		checkManifest(t, folder, m)
	})
}

func checkManifest(t *testing.T, folder string, m *scenario.Manifest) {
	t.Helper()
	switch {
	case m.Version != 1:
		t.Fatalf("accepted version %d", m.Version)
	case m.Scenario != folder || !fuzzKebab.MatchString(m.Scenario):
		t.Fatalf("accepted scenario %q in folder %q", m.Scenario, folder)
	case strings.TrimSpace(m.Reason) == "":
		t.Fatalf("accepted an empty reason %q", m.Reason)
	case m.Recording != "live" && m.Recording != "authored":
		t.Fatalf("accepted recording %q", m.Recording)
	case !slices.Contains([]string{"", "auto", "ask"}, m.Permission):
		t.Fatalf("accepted permission %q", m.Permission)
	case m.Platform != "" && m.Platform != "posix":
		t.Fatalf("accepted platform %q", m.Platform)
	}
	for name := range m.Env {
		if !fuzzEnvName.MatchString(name) || name == "HOME" || strings.HasPrefix(name, "ACPSNAP_") || strings.HasPrefix(name, "DEEPSEEK_") {
			t.Fatalf("accepted env name %q", name)
		}
	}
}

// FuzzLoadInput, seeded with every committed input.json: LoadInput never
// panics, positions its errors, and what it accepts has at least one step,
// only known ops with what each op needs, known permission kinds, and
// survives re-encoding: marshalled again, it loads to the same script.
func FuzzLoadInput(f *testing.F) {
	_, contents := corpusFiles(f, scenario.InputFile)
	for _, b := range contents {
		f.Add(b)
	}
	dir := f.TempDir() // one per worker: the inputs run one at a time
	f.Add([]byte(`{"steps":[{"op":"promptAndCancel","text":"<&>","waitForFile":"a/../b","timeoutMs":1}],"clientCapabilities":{"fs":{"readTextFile":true}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := writeFuzz(t, dir, "s", scenario.InputFile, b)
		in, err := scenario.LoadInput(path)
		if err != nil {
			if in != nil || !strings.HasPrefix(err.Error(), "scenario: "+path+":") {
				t.Fatalf("LoadInput = %v, %v; want nil and an error starting with the path", in, err)
			}
			return
		}
		checkInput(t, in)
		again, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		in2, err := scenario.LoadInput(writeFuzz(t, dir, "again", scenario.InputFile, again))
		if err != nil {
			t.Fatalf("the re-encoded script does not load: %v\n%s", err, again)
		}
		if diff := cmp.Diff(in, in2, cmp.Transformer("json", decodeRaw), cmpopts.IgnoreFields(scenario.Step{}, "Line")); diff != "" {
			t.Fatalf("load(marshal(load(x))) (-want +got):\n%s", diff)
		}
	})
}

func checkInput(t *testing.T, in *scenario.Input) {
	t.Helper()
	if len(in.Steps) == 0 {
		t.Fatal("accepted a script without steps")
	}
	for i, s := range in.Steps {
		need := map[string]bool{
			scenario.OpPrompt: s.Text != "", scenario.OpPromptExpectError: s.Text != "", scenario.OpPromptAndCancel: s.Text != "",
			scenario.OpPromptContent: len(s.Content) > 0, scenario.OpWaitForFile: s.Path != "",
		}
		switch ok, has := need[s.Op]; {
		case !slices.Contains(knownOps, s.Op):
			t.Fatalf("step %d: accepted unknown op %q", i, s.Op)
		case has && !ok:
			t.Fatalf("step %d: accepted op %s without its field: %+v", i, s.Op, s)
		case s.MinimumTurn < 0 || s.Child < 0 || s.TimeoutMs < 0:
			t.Fatalf("step %d: accepted a negative count: %+v", i, s)
		}
		for _, p := range []string{s.Path, s.WaitForFile} {
			if p != "" && (filepath.IsAbs(p) || !filepath.IsLocal(p)) {
				t.Fatalf("step %d: accepted a path outside the cwd: %q", i, p)
			}
		}
	}
	for i, a := range in.PermissionAnswers {
		if !slices.Contains(knownKinds, a.Kind) {
			t.Fatalf("permission answer %d: accepted kind %q", i, a.Kind)
		}
	}
	if c := in.ClientCapabilities; c != nil && !bytes.HasPrefix(bytes.TrimSpace(c), []byte("{")) {
		t.Fatalf("accepted client capabilities that are not an object: %s", c)
	}
}

// decodeRaw compares raw JSON by value (encoding may change escapes and
// blanks, not meaning).
func decodeRaw(r json.RawMessage) any {
	if r == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return string(r)
	}
	return v
}
