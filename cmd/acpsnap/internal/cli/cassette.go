package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/console"
)

// cassetteKinds are the cassette kinds verify and inspect know; a new kind
// (the subagent cassette) adds its Kind here.
var cassetteKinds = []cassette.Kind{tool.Kind(), subagent.Kind()}

const cassetteUsage = `usage: acpsnap cassette <command> FILE

commands:
  verify FILE           check a cassette's integrity (exit 0 valid, 1 invalid)
  inspect FILE [-json] [-show-calls]
                        show its metadata: version, kind, frame counts, integrity, calls (never
                        bodies); -show-calls lists a subagent cassette's calls (key, outcome, timing)
  diff A B [-json] [-show-calls]
                        compare two subagent cassettes (exit 0 equivalent, 1 different or
                        not safely comparable, 2 usage, read or format error)
`

// cassetteCmd runs "acpsnap cassette …" and returns the exit code: 0 valid,
// 1 invalid or unreadable, 2 usage.
func (e *env) cassetteCmd(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, cassetteUsage)
		return ExitUsage
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "verify":
		return e.cassetteVerify(rest)
	case "inspect":
		return e.cassetteInspect(rest)
	case "diff":
		return e.cassetteDiff(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, cassetteUsage)
		return ExitOK
	default:
		fmt.Fprintf(e.stderr, "acpsnap: cassette: unknown command %q\n%s", sub, cassetteUsage)
		return ExitUsage
	}
}

// interleaved parses fs's flags wherever they are among args, before,
// between or after the positional arguments it returns; a bad flag is a
// usage error.
func interleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// cassetteArgs parses flags given anywhere around the one FILE argument.
func cassetteArgs(fs *flag.FlagSet, args []string) (string, error) {
	rest, err := interleaved(fs, args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 {
		return "", usagef("%s: want one FILE argument, got %d", fs.Name(), len(rest))
	}
	return rest[0], nil
}

func (e *env) cassetteVerify(args []string) int {
	fs := e.flags("cassette verify")
	file, err := cassetteArgs(fs, args)
	if err != nil {
		return e.exit(err)
	}
	f, err := cassette.ReadFile(file, cassetteKinds...)
	if err != nil {
		fmt.Fprintln(e.stderr, "acpsnap:", console.Text(err.Error()))
		return ExitFailed
	}
	fmt.Fprintf(e.stdout, "%s: ok: %s cassette, version %d, %d frames%s\n", console.Line(cassette.Display(file)), console.Line(f.Kind), f.Version, f.Total, statsSuffix(f))
	return ExitOK
}

// statsSuffix is ", 3 calls" for a tool cassette: the kind's first count.
func statsSuffix(f *cassette.File) string {
	st := kindStats(f)
	if len(st) == 0 {
		return ""
	}
	return fmt.Sprintf(", %d %s", st[0].Value, st[0].Name)
}

func kindStats(f *cassette.File) []cassette.Stat {
	for _, k := range cassetteKinds {
		if k.Name == f.Kind && k.Stats != nil {
			return k.Stats(f.Policy, f.Frames)
		}
	}
	return nil
}

// inspection is what inspect shows: metadata only, never a body.
type inspection struct {
	File        string         `json:"file"`
	Format      string         `json:"format,omitempty"`
	Version     int            `json:"version,omitempty"`
	Kind        string         `json:"kind,omitempty"`
	Frames      int            `json:"frames"`
	Types       map[string]int `json:"types"`
	Integrity   string         `json:"integrity"`        // "ok" or "invalid"
	Reason      string         `json:"reason,omitempty"` // why invalid
	Stats       map[string]int `json:"stats,omitempty"`
	Consumption string         `json:"consumption"`
	Calls       []listedCall   `json:"calls,omitempty"` // -show-calls, subagent cassettes

	stats []cassette.Stat // in the kind's order, for the text form
}

// consumptionNote says where replay consumption lives: it is not in the
// file. A subagent cassette is matched by identity, not consumed in order.
const (
	consumptionNote         = "replay consumes the recorded calls in order; the count lives in the replaying process, and extra or unconsumed calls fail that run"
	subagentConsumptionNote = "replay matches each call by parent, context and request, in any order; consumption lives in the replaying process, and a miss or an unconsumed call fails that run"
)

func (e *env) cassetteInspect(args []string) int {
	fs := e.flags("cassette inspect")
	asJSON := fs.Bool("json", false, "print JSON")
	showCalls := fs.Bool("show-calls", false, "list a subagent cassette's calls (metadata only)")
	file, err := cassetteArgs(fs, args)
	if err != nil {
		return e.exit(err)
	}
	f, rerr := cassette.ReadFile(file, cassetteKinds...)
	var calls []listedCall
	if rerr == nil && *showCalls && f.Kind == subagent.Kind().Name {
		calls, rerr = subagentCalls(file) // also verifies the topology
	}
	in := inspect(cassette.Display(file), f, rerr)
	in.Calls = calls
	if *asJSON {
		b, _ := json.MarshalIndent(in, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		in.text(e.stdout)
	}
	if rerr != nil {
		return ExitFailed
	}
	return ExitOK
}

func inspect(name string, f *cassette.File, err error) inspection {
	in := inspection{File: name, Version: f.Version, Kind: f.Kind, Types: f.Counts(), Integrity: "ok", Consumption: consumptionNote}
	if f.Kind == subagent.Kind().Name {
		in.Consumption = subagentConsumptionNote
	}
	if f.Version > 0 {
		in.Format = cassette.Format
	}
	for _, n := range in.Types {
		in.Frames += n
	}
	if err != nil {
		in.Integrity = "invalid"
		var ce *cassette.Error
		switch {
		case errors.As(err, &ce) && ce.Frame >= 0:
			in.Reason = fmt.Sprintf("line %d: frame %d: %s", ce.Frame+1, ce.Frame, ce.Reason)
		case errors.As(err, &ce):
			in.Reason = ce.Reason
		default:
			in.Reason = err.Error()
		}
		return in
	}
	in.stats = kindStats(f)
	in.Stats = map[string]int{}
	for _, s := range in.stats {
		in.Stats[s.Name] = s.Value
	}
	return in
}

// text prints in for people; what the file says (its kind, why it is
// invalid) is made visible.
func (in inspection) text(w io.Writer) {
	in.File, in.Kind, in.Reason = console.Line(in.File), console.Line(in.Kind), console.Line(in.Reason)
	fmt.Fprintf(w, "file: %s\n", in.File)
	if in.Version > 0 {
		fmt.Fprintf(w, "format: %s version %d\n", in.Format, in.Version)
	}
	if in.Kind != "" {
		fmt.Fprintf(w, "kind: %s\n", in.Kind)
	}
	fmt.Fprintf(w, "frames: %d%s\n", in.Frames, typeList(in.Kind, in.Types))
	if in.Reason != "" {
		fmt.Fprintf(w, "integrity: invalid: %s\n", in.Reason)
		return
	}
	fmt.Fprintln(w, "integrity: ok")
	for _, s := range in.stats {
		fmt.Fprintf(w, "%s: %d\n", s.Name, s.Value)
	}
	if in.Calls != nil {
		writeCalls(w, in.Calls)
	}
	fmt.Fprintf(w, "consumption: %s\n", in.Consumption)
}

// typeList is " (header 1, call/start 2, …)", in the kind's frame order.
func typeList(kind string, types map[string]int) string {
	order := []string{cassette.TypeHeader}
	for _, k := range cassetteKinds {
		if k.Name == kind {
			order = append(order, k.Types...)
		}
	}
	order = append(order, cassette.TypeComplete)
	var parts []string
	for _, n := range order {
		if c, ok := types[n]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", n, c))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
