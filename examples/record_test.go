package examples_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestGeminiRecordStandIn records gemini-cli's text-turn with `acpsnap
// record` against a local stand-in for the live Gemini API (a scripted
// server in the gemini-generate-content dialect on 127.0.0.1), taking the
// URL from GOOGLE_GEMINI_BASE_URL and the key from GEMINI_API_KEY, or
// GOOGLE_API_KEY when that is unset. The key must reach the stand-in, in
// x-goog-api-key, and no fixture; the recording must then replay offline.
func TestGeminiRecordStandIn(t *testing.T) {
	const dir = "gemini-cli"
	path := agentPath(t)
	if !lookPath("gemini", path) {
		t.Skipf("gemini is not installed (%s)", installHint)
	}
	acpsnap := buildAcpsnap(t)
	for _, keyEnv := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Run(keyEnv, func(t *testing.T) {
			const key = "live-key-7f3a9c" // stands in for a real one
			root := liveCopy(t, dir, "text-turn")
			f, err := os.Open(filepath.Join(dir, "text-turn", "model.json"))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := replay.DecodeModel(f, f.Name())
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			cfg.Dialect = "gemini-generate-content"
			srv, err := replay.NewServer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			env := append(os.Environ(), "PATH="+path, "CI=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=",
				"GOOGLE_GEMINI_BASE_URL="+srv.URL(), keyEnv+"="+key)
			// Not -offline: the stand-in listens outside the run's namespace.
			// gemini-cli tries no other connection with this corpus's
			// settings (TestExamples runs it -offline and sees none).
			record := exec.Command(acpsnap, "record", "-dir", root, "-run", "^text-turn$")
			record.Env = env
			if out, err := record.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("wrote text-turn")) {
				t.Fatalf("acpsnap record: %v\n%s", err, out)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Header.Get("X-Goog-Api-Key") != key || !strings.HasSuffix(reqs[0].Path, ":streamGenerateContent") {
				t.Fatalf("the stand-in got %d requests (%+v), want one streamGenerateContent with the key in x-goog-api-key", len(reqs), reqs)
			}
			checkNoKey(t, root, key)
			run := exec.Command(acpsnap, "run", "-offline", "-dir", root)
			run.Env = env
			if out, err := run.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("1 passed, 0 failed")) {
				t.Fatalf("acpsnap run -offline of the recording: %v\n%s", err, out)
			}
		})
	}
}

// liveCopy copies the corpus's root and one scenario into a temporary
// corpus, the scenario made a live one not recorded yet (recording: live;
// no model.json, session log or expected stdout), and returns the copy's
// root.
func liveCopy(t *testing.T, dir, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), filepath.Base(dir))
	for _, sub := range []string{"home", "pins", name} {
		if err := os.CopyFS(filepath.Join(root, sub), os.DirFS(filepath.Join(dir, sub))); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, scenario.CorpusFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, scenario.CorpusFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(root, name, scenario.ManifestFile)
	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	m = bytes.Replace(m, []byte("recording: authored"), []byte("recording: live"), 1)
	if err := os.WriteFile(manifest, m, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.json", scenario.SessionFile, scenario.StdoutFile} {
		if err := os.Remove(filepath.Join(root, name, f)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// checkNoKey fails when any file under root holds key.
func checkNoKey(t *testing.T, root, key string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the live key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
