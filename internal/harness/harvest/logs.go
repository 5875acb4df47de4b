package harvest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/mcpproxy"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// File is a session log found under the sessions directory: its raw
// bytes and its parsed header line.
type File struct {
	Name   string // "sessions/<dir>/session.jsonl", for messages
	Path   string
	Raw    []byte
	Header sessionlog.Header
}

// Caps on what the harness reads from the sessions directory, so that
// memory stays bounded whatever the agent leaves there.
const (
	maxLog    = 256 << 20 // one session log
	maxLogs   = 512 << 20 // all session logs of a run
	maxReport = 16 << 20  // replay-report.json
)

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// scanLogs reads every <sessions>/*/session.jsonl whose header line is
// complete, or, when final (the agent is gone), whose header is all there
// is, newline or not. Only regular files are read (a FIFO would block, a
// link to /dev/zero would never end), each at most maxLog bytes, all at
// most maxLogs. Logs are read whole; callers parse what they need.
func scanLogs(sessions string, final bool) ([]File, error) {
	paths, err := filepath.Glob(filepath.Join(sessions, "*", sessionlog.FileName))
	if err != nil {
		return nil, err
	}
	var logs []File
	total := 0
	for _, p := range paths {
		name := "sessions/" + filepath.Base(filepath.Dir(p)) + "/" + sessionlog.FileName
		raw, err := safefile.ReadAs(p, name, maxLog)
		if err != nil {
			return nil, err
		}
		if total += len(raw); total > maxLogs {
			return nil, fmt.Errorf("%s: the session logs hold more than %d MiB in all; the harness reads at most that", name, maxLogs>>20)
		}
		l := File{Name: name, Path: p, Raw: raw}
		if bytes.HasPrefix(raw, utf8BOM) {
			return nil, fmt.Errorf("%s:1: the log starts with a UTF-8 byte order mark (BOM); session logs are JSON lines without one", name)
		}
		first, _, ok := bytes.Cut(raw, []byte("\n"))
		if !ok && (!final || len(bytes.TrimSpace(raw)) == 0) {
			continue // the header is still being written
		}
		if err := json.Unmarshal(first, &l.Header); err != nil || l.Header.Type != "session" {
			return nil, fmt.Errorf("%s:1: not a session header: %s", l.Name, console.Quote(first))
		}
		logs = append(logs, l)
	}
	return logs, nil
}

// longLine reports the first line of raw longer than the JSONL readers
// accept, as "name:line: line too long".
func longLine(name string, raw []byte) error {
	for n := 1; len(raw) > 0; n++ {
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			i = len(raw)
		}
		if i > strictjson.MaxLine {
			return fmt.Errorf("%s:%d: line too long (%d bytes; the readers take at most %d MiB)", name, n, i, strictjson.MaxLine>>20)
		}
		raw = raw[min(i+1, len(raw)):]
	}
	return nil
}

// orderLogs puts the primary session first, then the others by createdAt,
// then id.
func orderLogs(logs []File, primary string) {
	sort.SliceStable(logs, func(i, j int) bool {
		a, b := logs[i].Header, logs[j].Header
		if (a.ID == primary) != (b.ID == primary) {
			return a.ID == primary
		}
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.ID < b.ID
	})
}

// Find is the log whose header id is id, if it exists yet.
func Find(sessions, id string) (*File, error) {
	logs, err := scanLogs(sessions, false)
	if err != nil {
		return nil, err
	}
	for i := range logs {
		if logs[i].Header.ID == id {
			return &logs[i], nil
		}
	}
	return nil, nil
}

// Children are the logs with a parent session, by createdAt, then id.
func Children(sessions string) ([]File, error) {
	logs, err := scanLogs(sessions, false)
	if err != nil {
		return nil, err
	}
	var children []File
	for _, l := range logs {
		if l.Header.ParentSession != "" {
			children = append(children, l)
		}
	}
	orderLogs(children, "")
	return children, nil
}

// MaxTurn is the highest turn of the complete events of type typ in the
// log (0: none). Every complete line is parsed; a malformed one is an error
// with its line. A trailing line without "\n" is still being written.
func (l *File) MaxTurn(typ string) (int, error) {
	lines := bytes.Split(l.Raw, []byte("\n"))
	maxT := 0
	for i, line := range lines[1 : len(lines)-1] {
		var e struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return 0, fmt.Errorf("%s:%d: malformed event: %v", l.Name, i+2, err)
		}
		if e.Type != typ {
			continue
		}
		var d struct {
			Turn *int `json:"turn"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil || d.Turn == nil {
			return 0, fmt.Errorf("%s:%d: %s without a numeric data.turn", l.Name, i+2, typ)
		}
		maxT = max(maxT, *d.Turn)
	}
	return maxT, nil
}

// Logs reads and validates every log of the sessions directory once the
// agent is gone, primary first; on an error, the logs before the bad one.
func Logs(sessions, primary string) ([]File, error) {
	files, err := scanLogs(sessions, true)
	if err != nil {
		return nil, fmt.Errorf("harvest session logs: %w", err)
	}
	orderLogs(files, primary)
	var logs []File
	for _, f := range files {
		if err := longLine(f.Name, f.Raw); err != nil {
			return logs, fmt.Errorf("harvest session logs: %w", err)
		}
		if _, err := sessionlog.Read(bytes.NewReader(f.Raw), f.Name); err != nil {
			return logs, fmt.Errorf("harvest session logs: %w", err)
		}
		logs = append(logs, f)
	}
	return logs, nil
}

// Report reads the agent's replay report from the sessions directory;
// nil when there is none.
func Report(sessions string) (*agentenv.Report, error) {
	path := filepath.Join(sessions, agentenv.ReportFile)
	if _, err := os.Lstat(path); os.IsNotExist(err) {
		return nil, nil
	}
	// Read once, as a regular file within its cap, and decoded from what
	// was read.
	b, err := safefile.ReadAs(path, "sessions/"+agentenv.ReportFile, maxReport)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	r, err := decodeReport(b, path)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// CheckReport fails a replay that left entries unserved or raised errors,
// or that wrote logs without saying what it consumed.
func CheckReport(r *agentenv.Report, logs int) error {
	if r == nil {
		if logs > 0 {
			return fmt.Errorf("replay: the agent wrote %d session log(s) but no %s in its sessions directory (does it honour ACPSNAP_MODE=replay and write its report at exit?)", logs, agentenv.ReportFile)
		}
		return nil
	}
	var problems []string
	for _, f := range r.Fixtures {
		if f.Left > 0 {
			problems = append(problems, fmt.Sprintf("fixture %s: %d of %d model calls never made (served %d, left %d)", f.Fixture, f.Left, f.Served+f.Left, f.Served, f.Left))
		}
	}
	for _, e := range r.Errors {
		problems = append(problems, "replay error: "+e)
	}
	if len(problems) == 0 {
		return nil
	}
	msg := "replay: the agent's consumption report says:"
	for _, p := range problems {
		msg += "\n\t" + p
	}
	return fmt.Errorf("%s", msg)
}

// Cassettes reads the cassettes a recording agent published in the
// sessions folder (a .partial left behind means a recording that did not
// finish: an error).
func Cassettes(sessions string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range []string{scenario.ToolCassetteFile, scenario.SubagentCassetteFile} {
		p := filepath.Join(sessions, name)
		if _, err := os.Stat(p + ".partial"); err == nil {
			return nil, fmt.Errorf("the agent left %s.partial: a cassette recording that never completed", name)
		}
		b, err := safefile.ReadAs(p, "sessions/"+name, cassette.MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("harvest %s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

// MCPReport returns the error the mcp-cassette proxy reported at path, or
// why there is no report.
func MCPReport(path string) error {
	b, err := safefile.ReadAs(path, "sessions/"+filepath.Base(path), maxReport)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("its mcp-cassette proxy never reported (the agent did not start it, or did not close it before exiting)")
	}
	if err != nil {
		return err
	}
	var rep mcpproxy.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("the proxy's report: %w", err)
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	return nil
}

// ReadReport reads a report written by agentenv.WriteReport; unknown keys are errors.
func ReadReport(path string) (agentenv.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return agentenv.Report{}, fmt.Errorf("harvest: read report: %w", err)
	}
	return decodeReport(b, path)
}

// decodeReport decodes the report b read from path.
func decodeReport(b []byte, path string) (agentenv.Report, error) {
	var r agentenv.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return agentenv.Report{}, fmt.Errorf("harvest: read report: %s: %w", path, err)
	}
	if dec.More() {
		return agentenv.Report{}, fmt.Errorf("harvest: read report: %s: trailing data after the report", path)
	}
	return r, nil
}
