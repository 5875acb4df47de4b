package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shard is a report of one shard of a corpus, with a transcript that holds
// what could close the data element if it were not escaped.
func shard(corpus, run string, scenarios ...Scenario) Page {
	return Page{Corpus: corpus, Run: run, Scenarios: scenarios}
}

func TestReadHTML(t *testing.T) {
	tr := &Transcript{Name: "x", Turns: []Turn{{Prompt: "print </script><script>alert(1)</script> & <b>"}}, Source: "fixtures"}
	want := shard("acp", "go 1", Scenario{Name: "x", Status: "failed", Duration: 1500 * time.Millisecond, Reason: "differs", Diff: "-a\n+b\n", Transcript: tr})
	var page bytes.Buffer
	if err := WriteHTML(&page, want); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), "</script>"); n != 2 {
		t.Errorf("the page closes %d script elements, want 2 (the search and the data): the data broke out", n)
	}
	got, err := ReadHTML(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want.Title = "acpsnap report"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}
	if _, err := ReadHTML([]byte("<html>no report</html>")); err == nil || !strings.Contains(err.Error(), "not an acpsnap HTML report") {
		t.Errorf("ReadHTML of another page = %v", err)
	}
}

func TestMerge(t *testing.T) {
	pass := func(name string) Scenario { return Scenario{Name: name, Status: "passed"} }
	fail := func(name string) Scenario { return Scenario{Name: name, Status: "failed"} }
	type testCase struct {
		name    string
		reports []Page
		corpus  string
		want    []string // corpus/name status, in order
	}
	for _, tc := range []testCase{
		{"the shards of a corpus", []Page{shard("acp", "", pass("b"), pass("d")), shard("acp", "", fail("c"), pass("a"))}, "acp",
			[]string{"/c failed", "/a passed", "/b passed", "/d passed"}},
		{"two corpora", []Page{shard("native", "", pass("hello")), shard("http", "", fail("hello"))}, "",
			[]string{"http/hello failed", "native/hello passed"}},
		{"a scenario twice: the last", []Page{shard("acp", "", fail("a")), shard("acp", "", pass("a"))}, "acp",
			[]string{"/a passed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Merge(tc.reports...)
			var got []string
			for _, s := range m.Scenarios {
				got = append(got, s.Corpus+"/"+s.Name+" "+s.Status)
			}
			if d := cmp.Diff(tc.want, got); d != "" || m.Corpus != tc.corpus {
				t.Errorf("merged corpus %q (want %q), scenarios (-want +got):\n%s", m.Corpus, tc.corpus, d)
			}
		})
	}
}

// TestMergeFile: reports of one run add to one page, a corpus written again
// replaces its scenarios, another run replaces the page, and a page that
// holds a key is not written.
func TestMergeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	steps := []struct {
		r    Page
		want []string
	}{
		{shard("a/native", "go 1", Scenario{Name: "hello", Status: "passed"}), []string{"/hello"}},
		{shard("b/http", "go 1", Scenario{Name: "hello", Status: "failed"}), []string{"b/http/hello", "a/native/hello"}},
		{shard("b/http", "go 1", Scenario{Name: "bye", Status: "passed"}), []string{"a/native/hello", "b/http/bye"}},
		{shard("b/http", "go 2", Scenario{Name: "hello", Status: "passed"}), []string{"/hello"}},
	}
	for i, step := range steps {
		if err := MergeFile(path, step.r, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadHTML(b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Scenarios {
			got = append(got, s.Corpus+"/"+s.Name)
		}
		if d := cmp.Diff(step.want, got); d != "" {
			t.Errorf("step %d (-want +got):\n%s", i+1, d)
		}
	}
	refuse := func(file string, b []byte) error {
		if bytes.Contains(b, []byte("sk-live")) {
			return os.ErrPermission
		}
		return nil
	}
	err := MergeFile(path, shard("c", "go 2", Scenario{Name: "x", Status: "failed", Reason: "sk-live"}), refuse)
	if err == nil {
		t.Error("a page holding a key was written")
	}
	if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("sk-live")) {
		t.Error("the refused page reached the file")
	}
}
