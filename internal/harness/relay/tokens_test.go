package relay

import "testing"

// TestSlug: Claude Code's per-project folder name, every character that is
// not an ASCII letter or digit as "-" (per UTF-16 unit).
func TestSlug(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/tmp/acpsnap-0a1b/workspace", "-tmp-acpsnap-0a1b-workspace"},
		{"/tmp/TestX_1/001/a.b c", "-tmp-TestX-1-001-a-b-c"},
		{"/tmp/é/😀", "-tmp-----"}, // é one unit, 😀 two
	}
	for _, tt := range tests {
		if got := slug(tt.path); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
