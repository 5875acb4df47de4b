package report

import (
	"fmt"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Load builds the transcript of the scenario folder dir from its committed
// fixtures, normalized.
func Load(dir string) (*Transcript, error) {
	f, err := scenario.ReadFixture(dir)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	norm, err := check.NormalizeFixture(f)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return FromRun(dir, norm, "fixtures")
}

// FromRun builds the transcript of the scenario folder dir from one
// normalized side, got (what a run produced, or the fixtures); source
// names it in the views.
func FromRun(dir string, got *scenario.Transcript, source string) (*Transcript, error) {
	in, err := scenario.LoadInput(filepath.Join(dir, scenario.InputFile))
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	pins := httplog.OpenPins(filepath.Join(filepath.Dir(dir), scenario.PinsDir))
	src := Source{Name: filepath.Base(dir), Input: in, Stdout: got.Stdout, Logs: got.Logs, Pins: pins}
	for i := range got.Logs {
		src.LogNames = append(src.LogNames, filepath.Join(dir, scenario.LogName(i)))
	}
	if source == "fixtures" {
		src.StdoutName = filepath.Join(dir, scenario.StdoutFile)
	}
	t, err := Build(src)
	if err != nil {
		return nil, err
	}
	t.Source = source
	return t, nil
}
