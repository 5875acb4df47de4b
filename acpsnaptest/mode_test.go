package acpsnaptest

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/frontend"
)

func TestReadSettings(t *testing.T) {
	type testCase struct {
		name    string
		args    []string
		env     map[string]string
		want    check.Mode
		pending bool
		only    check.RecordSet
		shard   shard
		junit   string
		wantErr string
	}
	for _, tc := range []testCase{
		{name: "default", want: check.Replay},
		{name: "flag", args: []string{"-acpsnap.update"}, want: check.Update},
		{name: "env", env: map[string]string{"ACPSNAP_WRITE": "refresh"}, want: check.Refresh},
		{name: "flag and env agree", args: []string{"-acpsnap.record"}, env: map[string]string{"ACPSNAP_WRITE": "record"}, want: check.Record},
		{name: "flag and env differ", args: []string{"-acpsnap.update"}, env: map[string]string{"ACPSNAP_WRITE": "record"}, wantErr: "choose one writing mode"},
		{name: "two flags", args: []string{"-acpsnap.update", "-acpsnap.refresh"}, wantErr: "choose one writing mode"},
		{name: "bad env", env: map[string]string{"ACPSNAP_WRITE": "replay"}, wantErr: `ACPSNAP_WRITE="replay": want update, refresh, record, record-missing, record-drifted or pending`},
		{name: "pending flag", args: []string{"-acpsnap.pending"}, want: check.Replay, pending: true},
		{name: "pending env", env: map[string]string{"ACPSNAP_WRITE": "pending"}, want: check.Replay, pending: true},
		{name: "pending in CI", env: map[string]string{"ACPSNAP_WRITE": "pending", "CI": "true"}, wantErr: "pending writes pending files and CI is set"},
		// The CLI's rule: CI never writes pending files, even forced.
		{name: "pending in CI, forced", args: []string{"-acpsnap.force"}, env: map[string]string{"ACPSNAP_WRITE": "pending", "CI": "true"}, wantErr: "refusing, even with -acpsnap.force"},
		{name: "pending and update", args: []string{"-acpsnap.update", "-acpsnap.pending"}, wantErr: "choose one writing mode"},
		{name: "record-missing", env: map[string]string{"ACPSNAP_WRITE": "record-missing"}, want: check.Record, only: check.RecordMissing},
		{name: "record-drifted flag", args: []string{"-acpsnap.record-drifted"}, want: check.Record, only: check.RecordDrifted},
		{name: "ACPSNAP_SHARD", env: map[string]string{"ACPSNAP_SHARD": "2/3"}, want: check.Replay, shard: shard{k: 2, n: 3}},
		{name: "bad ACPSNAP_SHARD", env: map[string]string{"ACPSNAP_SHARD": "4/3"}, wantErr: `ACPSNAP_SHARD: invalid shard "4/3"`},
		{name: "Bazel shards from 0", env: map[string]string{"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "0", "TEST_SHARD_STATUS_FILE": "/tmp/s"},
			want: check.Replay, shard: shard{k: 1, n: 4, bazel: frontend.Bazel{StatusFile: "/tmp/s"}}},
		{name: "Bazel index out of range", env: map[string]string{"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "4"}, wantErr: "want 0 <= index < total"},
		{name: "ACPSNAP_SHARD wins over Bazel", env: map[string]string{"ACPSNAP_SHARD": "1/2", "TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "3"},
			want: check.Replay, shard: shard{k: 1, n: 2}},
		{name: "JUnit to XML_OUTPUT_FILE", env: map[string]string{"XML_OUTPUT_FILE": "/tmp/r.xml"}, want: check.Replay, junit: "/tmp/r.xml"},
		{name: "CI refuses", args: []string{"-acpsnap.update"}, env: map[string]string{"CI": "true"}, wantErr: "CI is set"},
		{name: "CI=1 refuses", env: map[string]string{"CI": "1", "ACPSNAP_WRITE": "update"}, wantErr: "CI is set"},
		{name: "CI forced", args: []string{"-acpsnap.update", "-acpsnap.force"}, env: map[string]string{"CI": "true"}, want: check.Update},
		{name: "CI=false writes", args: []string{"-acpsnap.update"}, env: map[string]string{"CI": "false"}, want: check.Update},
		{name: "CI=0 writes", args: []string{"-acpsnap.refresh"}, env: map[string]string{"CI": "0"}, want: check.Refresh},
		{name: "CI replays", env: map[string]string{"CI": "true"}, want: check.Replay},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			registerFlags(fs)
			registerFlags(fs) // a second registration is a no-op, not a panic
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			s, err := readSettings(fs, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			type got struct {
				Mode    check.Mode
				Pending bool
				Only    check.RecordSet
				Shard   [2]int
				Status  string
				JUnit   string
			}
			want := got{tc.want, tc.pending, tc.only, [2]int{tc.shard.k, tc.shard.n}, tc.shard.bazel.StatusFile, tc.junit}
			if d := cmp.Diff(want, got{s.mode, s.pending, s.only, [2]int{s.shard.k, s.shard.n}, s.shard.bazel.StatusFile, s.junit}); d != "" {
				t.Errorf("settings (-want +got):\n%s", d)
			}
		})
	}
}

// TestFlagsLeaveUpdateAlone: another library's -update coexists with ours.
func TestFlagsLeaveUpdateAlone(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	other := fs.Bool("update", false, "another library's golden flag")
	registerFlags(fs)
	if err := fs.Parse([]string{"-update"}); err != nil {
		t.Fatal(err)
	}
	s, err := readSettings(fs, func(string) string { return "" })
	if err != nil || !*other || s.mode != check.Replay {
		t.Errorf("-update: other=%v, mode=%q, err=%v; want the other flag set and replay", *other, s.mode, err)
	}
}

func TestCommandLine(t *testing.T) {
	type testCase struct {
		name      string
		cl        commandLine
		scenario  string
		mode      check.Mode
		flag, env string
	}
	for _, tc := range []testCase{
		{"top level", commandLine{pkg: "./snapshots", test: []string{"TestSnapshots"}}, "text-turn", check.Update,
			"go test ./snapshots -run 'TestSnapshots/^text-turn$' -args -acpsnap.update",
			"ACPSNAP_WRITE=update go test ./snapshots -run 'TestSnapshots/^text-turn$'"},
		{"nested, module root", commandLine{pkg: ".", test: []string{"TestACP", "corpus_a"}}, "x", check.Record,
			"go test . -run 'TestACP/corpus_a/^x$' -args -acpsnap.record",
			"ACPSNAP_WRITE=record go test . -run 'TestACP/corpus_a/^x$'"},
		{"metacharacters in the test name", commandLine{pkg: "./a", test: []string{"TestA", "v1.2"}}, "y", check.Refresh,
			`go test ./a -run 'TestA/v1\.2/^y$' -args -acpsnap.refresh`,
			`ACPSNAP_WRITE=refresh go test ./a -run 'TestA/v1\.2/^y$'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{tc.cl.flagForm(tc.scenario, tc.mode), tc.cl.envForm(tc.scenario, tc.mode)}
			if d := cmp.Diff([]string{tc.flag, tc.env}, got); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
		})
	}
}

// TestPackagePath: the package path is relative to the module root, the
// form go test takes when pasted there.
func TestPackagePath(t *testing.T) {
	if got := packagePath(); got != "./acpsnaptest" {
		t.Errorf("packagePath() = %q, want ./acpsnaptest", got)
	}
}
