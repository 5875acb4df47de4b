package frontend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	type testCase struct {
		name    string
		env     map[string]string
		want    Bazel
		wantErr string
	}
	for _, tc := range []testCase{
		{name: "outside Bazel", want: Bazel{}},
		{name: "a sharded test", env: map[string]string{"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "3", "TEST_SHARD_STATUS_FILE": "/s", "XML_OUTPUT_FILE": "/t.xml",
			"RUNFILES_DIR": "/r", "TEST_SRCDIR": "/r"}, want: Bazel{Shard: 4, Shards: 4, StatusFile: "/s", XMLOutput: "/t.xml", Runfiles: []string{"/r", "/r"}}},
		{name: "a test without shards", env: map[string]string{"XML_OUTPUT_FILE": "/t.xml", "TEST_SHARD_STATUS_FILE": "/s"}, want: Bazel{XMLOutput: "/t.xml"}},
		{name: "index past the total", env: map[string]string{"TEST_TOTAL_SHARDS": "4", "TEST_SHARD_INDEX": "4"}, wantErr: `TEST_TOTAL_SHARDS="4", TEST_SHARD_INDEX="4": want 0 <= index < total`},
		{name: "no index", env: map[string]string{"TEST_TOTAL_SHARDS": "2"}, wantErr: "want 0 <= index < total"},
		{name: "no shards", env: map[string]string{"TEST_TOTAL_SHARDS": "0", "TEST_SHARD_INDEX": "0"}, wantErr: "want 0 <= index < total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadBazel(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ReadBazel: %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ReadBazel (-want +got):\n%s", d)
			}
		})
	}
}

func TestTouch(t *testing.T) {
	if err := (Bazel{}).Touch(); err != nil {
		t.Errorf("Touch without a status file: %v", err)
	}
	status := filepath.Join(t.TempDir(), "test.shard")
	if err := (Bazel{StatusFile: status}).Touch(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(status); err != nil {
		t.Errorf("the status file was not made: %v", err)
	}
	err := Bazel{StatusFile: filepath.Join(t.TempDir(), "missing", "test.shard")}.Touch()
	if err == nil || !strings.Contains(err.Error(), "touch TEST_SHARD_STATUS_FILE") {
		t.Errorf("Touch in a missing folder = %v, want an error naming the variable", err)
	}
}
