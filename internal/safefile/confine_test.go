package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestConfined(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"out":     outside,                     // absolute, existing, outside
		"dang":    "../outside.txt",            // relative, dangling, outside
		"dangabs": filepath.Join(outside, "x"), // absolute, dangling, outside
		"in":      "sub",                       // relative, inside
		"loop":    "loop",                      // a loop
		"chain":   "in/../dang",                // through another link
		"indang":  "sub/new.txt",               // dangling, inside
		"sub/up":  "..",                        // climbs to root: still inside
		"sub/up2": "../..",                     // climbs out
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	type testCase struct {
		path string
		want bool
	}
	for _, tc := range []testCase{
		{"a.txt", true}, {"sub/a.txt", true}, {"new/dir/file", true},
		{"out/secret", false}, {"out", false}, {"dang", false}, {"dangabs", false},
		{"in/a.txt", true}, {"indang", true}, {"loop", false}, {"chain", false},
		{"sub/up/a.txt", true}, {"sub/up2/x", false}, {"../outside", false},
	} {
		abs := filepath.Join(root, tc.path)
		if got := Confined(root, abs); got != tc.want {
			t.Errorf("Confined(root, %q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if Confined(root, "/etc/passwd") {
		t.Error("an absolute path elsewhere is confined")
	}
}

func TestResolveNeedsAbsolute(t *testing.T) {
	if _, err := Resolve("relative"); err == nil {
		t.Error("Resolve accepted a relative path")
	}
}
