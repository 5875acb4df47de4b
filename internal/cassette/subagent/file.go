package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// Cassette is a verified subagent cassette in memory.
type Cassette struct {
	Name         string // the file as messages name it
	Policy       Policy
	Interactions []Interaction // in admission order
	Frames       int           // every frame, header and trailer included
}

// Kind is the subagent kind for the protocol's reader and writer: its
// frame type, closed schemas and the rules between interactions.
func Kind() cassette.Kind {
	return cassette.Kind{Name: Name, Types: []string{FrameInteraction}, Policy: checkPolicy,
		Body: checkBody, Check: checkFrames, Stats: stats}
}

// Load reads and verifies the subagent cassette at path: the protocol's
// checks (chain, trailer, closed frames), then the topology (admissions,
// occurrences, keys, parents, request storage, outcomes).
func Load(path string) (*Cassette, error) {
	f, err := cassette.ReadFile(path, Kind())
	if err != nil {
		return nil, err
	}
	return fromFile(f, cassette.Display(path))
}

// Parse is Load for bytes in memory; name is how messages call them.
func Parse(data []byte, name string) (*Cassette, error) {
	f, err := cassette.Verify(data, name, Kind())
	if err != nil {
		return nil, err
	}
	return fromFile(f, name)
}

func fromFile(f *cassette.File, name string) (*Cassette, error) {
	c := &Cassette{Name: name, Frames: f.Total}
	if err := strict(f.Policy, &c.Policy); err != nil {
		return nil, err
	}
	its, err := interactions(f.Frames)
	if err != nil {
		return nil, err
	}
	if err := checkInteractions(c.Policy, its, func(int) string { return name }); err != nil {
		return nil, err
	}
	c.Interactions = its
	return c, nil
}

// strict decodes a canonical body into v and refuses a body that is not
// exactly v's own encoding: no unknown, missing or null-for-absent member.
func strict(raw json.RawMessage, v any) error {
	if err := cassette.Decode(raw, v); err != nil {
		return err
	}
	again, err := canonical(v)
	if err != nil {
		return fmt.Errorf("$: %w", err)
	}
	if !bytes.Equal(again, raw) {
		return errors.New("$: a member is missing, or null where it must be absent")
	}
	return nil
}

func checkPolicy(raw json.RawMessage) error {
	var p Policy
	if err := strict(raw, &p); err != nil {
		return err
	}
	switch {
	case oneOf("requestStorage", p.RequestStorage, StorageMetadata, StorageFull) != nil:
		return errors.New("$.requestStorage: unknown storage")
	case p.RedactionPatterns < 0:
		return errors.New("$.redactionPatterns: negative")
	case (p.RedactionPatterns > 0) != fingerprintRE.MatchString(p.PatternsFingerprint):
		return errors.New("$.patternsFingerprint: present exactly when there are patterns")
	}
	return nil
}

func checkBody(typ string, raw json.RawMessage) error {
	var it Interaction
	return strict(raw, &it)
}

func interactions(frames []cassette.Frame) ([]Interaction, error) {
	its := make([]Interaction, len(frames))
	for i, fr := range frames {
		if err := strict(fr.Body, &its[i]); err != nil {
			return nil, &cassette.FrameError{Seq: fr.Seq, Reason: err.Error()}
		}
	}
	return its, nil
}

// checkFrames is the protocol's hook for the rules between interactions.
func checkFrames(policy json.RawMessage, frames []cassette.Frame) error {
	var p Policy
	if err := strict(policy, &p); err != nil {
		return err
	}
	its, err := interactions(frames)
	if err != nil {
		return err
	}
	bad := -1
	err = checkInteractions(p, its, func(i int) string { bad = i; return "" })
	if err != nil {
		seq := frames[len(frames)-1].Seq
		if bad >= 0 {
			seq = frames[bad].Seq
		}
		return &cassette.FrameError{Seq: seq, Reason: trimWhere(err)}
	}
	return nil
}

// trimWhere drops the ": " an empty where leaves at the front.
func trimWhere(err error) string {
	msg := err.Error()
	if len(msg) > 2 && msg[:2] == ": " {
		return msg[2:]
	}
	return msg
}

func stats(policy json.RawMessage, frames []cassette.Frame) []cassette.Stat {
	its, err := interactions(frames)
	if err != nil {
		return nil
	}
	roots, groups := 0, map[group]bool{}
	for i := range its {
		if its[i].Parent == Root {
			roots++
		}
		groups[its[i].group()] = true
	}
	return []cassette.Stat{{Name: "interactions", Value: len(its)}, {Name: "root calls", Value: roots}, {Name: "occurrence groups", Value: len(groups)}}
}

// Summary is one interaction's metadata, for listings such as inspect
// -show-calls: no prompt, result or error text, and the stop reason only
// as its bucket.
type Summary struct {
	Admission          int    `json:"admission"`
	Key                string `json:"key"`
	Parent             string `json:"parent"`
	Occurrence         int    `json:"occurrence"`
	ContextFingerprint string `json:"contextFingerprint"`
	RequestFingerprint string `json:"requestFingerprint"`
	Outcome            string `json:"outcome"` // kind, with the stop bucket for a result: "result/completed"
	StartMillis        int64  `json:"startMillis"`
	DurationMillis     int64  `json:"durationMillis"`
	Redacted           bool   `json:"redacted"`
}

// Summaries lists the cassette's interactions in admission order.
func (c *Cassette) Summaries() []Summary {
	out := make([]Summary, len(c.Interactions))
	for i := range c.Interactions {
		it := &c.Interactions[i]
		out[i] = Summary{Admission: it.Admission, Key: it.Key, Parent: it.Parent, Occurrence: it.Occurrence,
			ContextFingerprint: it.ContextFingerprint, RequestFingerprint: it.RequestFingerprint,
			Outcome: summary(it.Outcome), StartMillis: it.Outcome.StartMillis, DurationMillis: it.Outcome.DurationMillis,
			Redacted: it.Redacted}
	}
	return out
}
