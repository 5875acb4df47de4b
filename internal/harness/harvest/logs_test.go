package harvest

import (
	"strings"
	"testing"
)

func TestCheckReport(t *testing.T) {
	if err := CheckReport(nil, 0); err != nil {
		t.Errorf("no report and no logs: %v", err)
	}
	if err := CheckReport(nil, 1); err == nil {
		t.Error("no report but a log: no error")
	}
}

// TestLongLine: a session log line over the readers' limit is named with
// its file and line, not blamed on anything else.
func TestLongLine(t *testing.T) {
	raw := append([]byte("{\"type\":\"session\"}\n{}\n"), make([]byte, 64<<20+1)...)
	err := longLine("sessions/x/session.jsonl", raw)
	if err == nil || !strings.HasPrefix(err.Error(), "sessions/x/session.jsonl:3: line too long") {
		t.Errorf("longLine = %v", err)
	}
	if err := longLine("f", []byte("a\nb\n")); err != nil {
		t.Errorf("longLine of short lines = %v", err)
	}
}
