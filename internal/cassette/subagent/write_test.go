package subagent

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriterLock(t *testing.T) {
	path := cassettePath(t)
	r, err := Record(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{WriteCreate, WriteTruncate, WriteAppend} {
		_, err := Record(path, Options{WriteMode: mode})
		wantErr(t, err, "another writer holds the lock")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + LockSuffix); !os.IsNotExist(err) {
		t.Errorf("the lock outlived its writer: %v", err)
	}

	// a stale lock (a writer that died) is never removed automatically
	stale := cassettePath(t)
	if err := os.Mkdir(stale+LockSuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Record(stale, Options{})
	wantErr(t, err, "remove the directory by hand")
	if _, err := os.Stat(stale + LockSuffix); err != nil {
		t.Errorf("the stale lock was removed: %v", err)
	}
}

func TestWriteModes(t *testing.T) {
	path := cassettePath(t)
	one := func(r *Recorder) { call(t, r, rootParent(), req("x", "p"), returns(textResult("one"))) }
	two := func(r *Recorder) { call(t, r, rootParent(), req("y", "q"), returns(textResult("two"))) }
	record(t, path, Options{}, one)
	first := readFile(t, path)

	_, err := Record(path, Options{WriteMode: WriteCreate})
	wantErr(t, err, "already exists")
	if _, err := os.Stat(path + LockSuffix); !os.IsNotExist(err) {
		t.Errorf("a refused Record kept the lock")
	}

	// append: the old frames stay byte for byte, the chain goes on
	record(t, path, Options{WriteMode: WriteAppend}, func(r *Recorder) { one(r); two(r) })
	appended := readFile(t, path)
	prefix := first[:strings.LastIndex(strings.TrimSuffix(first, "\n"), "\n")+1] // without the trailer
	if !strings.HasPrefix(appended, prefix) {
		t.Errorf("append rewrote the existing frames")
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Admission, Occurrence int
		Label                 string
	}
	var got []row
	for _, it := range c.Interactions {
		got = append(got, row{it.Admission, it.Occurrence, it.Label})
	}
	if diff := cmp.Diff([]row{{1, 1, "x"}, {2, 2, "x"}, {3, 1, "y"}}, got); diff != "" {
		t.Errorf("appended interactions (-want +got):\n%s", diff)
	}

	// append under another policy is refused
	_, err = Record(path, Options{WriteMode: WriteAppend, RequestStorage: StorageFull})
	wantErr(t, err, "another policy")

	// append to a damaged cassette is refused
	damaged := cassettePath(t)
	if err := os.WriteFile(damaged, []byte(prefix), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Record(damaged, Options{WriteMode: WriteAppend})
	wantErr(t, err, "missing complete trailer")

	// append to nothing starts a cassette
	fresh := cassettePath(t)
	record(t, fresh, Options{WriteMode: WriteAppend}, one)
	if _, err := Load(fresh); err != nil {
		t.Errorf("append to a missing file: %v", err)
	}

	// truncate: the old cassette stays until the new one is complete
	r, err := Record(path, Options{WriteMode: WriteTruncate})
	if err != nil {
		t.Fatal(err)
	}
	two(r)
	if readFile(t, path) != appended {
		t.Errorf("truncate replaced the cassette before Close")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 1 || c.Interactions[0].Label != "y" {
		t.Errorf("after truncate: %d interactions, want only the new one", len(c.Interactions))
	}
	for _, leftover := range []string{path + stageSuffix, path + stageSuffix + ".partial", path + ".partial"} {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			t.Errorf("%s left behind", leftover)
		}
	}
}
