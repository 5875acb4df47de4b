package subagent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
)

// Name is the header's kind of a subagent cassette.
const Name = "subagent"

// FrameInteraction is the body frame type: one finished child call.
const FrameInteraction = "interaction"

// Policy is the recording policy a cassette's header carries. Append
// refuses to continue a cassette recorded under another policy; Diff
// reports a difference as policy drift.
type Policy struct {
	RequestStorage string `json:"requestStorage"`
	RedactSecrets  bool   `json:"redactSecrets"`
	// RedactionPatterns is how many extra patterns were in force, and
	// PatternsFingerprint the SHA-256 of their list ("" when none): the
	// patterns themselves are not stored, they may quote what they hide.
	RedactionPatterns   int    `json:"redactionPatterns"`
	PatternsFingerprint string `json:"patternsFingerprint,omitempty"`
}

func policyOf(s settings) Policy {
	p := Policy{RequestStorage: s.storage, RedactSecrets: s.redact, RedactionPatterns: len(s.patterns)}
	if len(s.patterns) > 0 {
		p.PatternsFingerprint, _ = fingerprint(s.patterns) // a []string always encodes
	}
	return p
}

// Interaction is one finished child call as the cassette stores it.
type Interaction struct {
	// Admission is the call's 1-based place in start order (not
	// completion order: frames are written as calls finish).
	Admission          int           `json:"admission"`
	Key                string        `json:"key"`    // CallKey of the call
	Parent             string        `json:"parent"` // Root or an earlier call's Key
	Label              string        `json:"label"`
	Occurrence         int           `json:"occurrence"` // 1-based within the group
	ContextFingerprint string        `json:"contextFingerprint"`
	RequestFingerprint string        `json:"requestFingerprint"`
	InheritsContext    bool          `json:"inheritsContext"`
	Request            StoredRequest `json:"request"`
	Outcome            Outcome       `json:"outcome"`
	// Redacted says redaction rewrote something in the stored outcome
	// (a redacted prompt in a full request does not count: it is never
	// served).
	Redacted bool `json:"redacted"`
}

// StoredRequest is the request view an interaction keeps. With storage
// "metadata" only the counts and the tool filter; with "full" also the
// redacted prompt, options and output schema.
type StoredRequest struct {
	Storage         string          `json:"storage"`
	PromptBytes     int             `json:"promptBytes"`
	HasOptions      bool            `json:"hasOptions"`
	HasOutputSchema bool            `json:"hasOutputSchema"`
	ToolFilter      []string        `json:"toolFilter"` // nil: all tools
	Prompt          *string         `json:"prompt,omitempty"`
	Options         json.RawMessage `json:"options,omitempty"`
	OutputSchema    json.RawMessage `json:"outputSchema,omitempty"`
}

// group is an occurrence group's identity.
type group struct{ parent, context, request string }

func (it *Interaction) group() group {
	return group{it.Parent, it.ContextFingerprint, it.RequestFingerprint}
}

var fingerprintRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// checkInteractions checks what the hash chain cannot: the interactions
// form one consistent topology recorded under policy. It sorts them by
// admission. where names an interaction in errors ("file:line").
func checkInteractions(p Policy, its []Interaction, where func(i int) string) error {
	idx := make([]int, len(its))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return its[idx[a]].Admission < its[idx[b]].Admission })
	keys := map[string]bool{}
	occ := map[group]int{}
	for n, i := range idx {
		it := &its[i]
		if err := checkOne(p, it, n+1, keys, occ); err != nil {
			return fmt.Errorf("%s: %w", where(i), err)
		}
	}
	sorted := make([]Interaction, len(its))
	for n, i := range idx {
		sorted[n] = its[i]
	}
	copy(its, sorted)
	return nil
}

// checkOne checks the interaction with admission want.
func checkOne(p Policy, it *Interaction, want int, keys map[string]bool, occ map[group]int) error {
	switch {
	case it.Admission != want:
		return fmt.Errorf("$.body.admission: want %d (admissions are 1, 2, … without gaps or repeats), got %d", want, it.Admission)
	case it.Parent != Root && !keys[it.Parent]:
		return fmt.Errorf("$.body.parent: not the root and not the key of an earlier call")
	case it.Label == "":
		return fmt.Errorf("$.body.label: empty")
	case !fingerprintRE.MatchString(it.ContextFingerprint):
		return fmt.Errorf("$.body.contextFingerprint: want sha256: and 64 hex digits")
	case !fingerprintRE.MatchString(it.RequestFingerprint):
		return fmt.Errorf("$.body.requestFingerprint: want sha256: and 64 hex digits")
	case it.Occurrence != occ[it.group()]+1:
		return fmt.Errorf("$.body.occurrence: want %d in its group, got %d", occ[it.group()]+1, it.Occurrence)
	case it.Key != CallKey(it.Parent, it.Label, it.ContextFingerprint, it.RequestFingerprint, it.Occurrence):
		return fmt.Errorf("$.body.key: does not match parent, label, fingerprints and occurrence")
	}
	occ[it.group()]++
	keys[it.Key] = true
	if err := checkRequest(p, it.Request); err != nil {
		return err
	}
	return checkOutcome(it.Outcome)
}

func checkRequest(p Policy, r StoredRequest) error {
	full := r.Prompt != nil || r.Options != nil || r.OutputSchema != nil
	switch {
	case r.Storage != p.RequestStorage:
		return fmt.Errorf("$.body.request.storage: %q, but the header's requestStorage is %q", r.Storage, p.RequestStorage)
	case r.Storage == StorageMetadata && full:
		return fmt.Errorf("$.body.request: metadata storage holds no prompt, options or output schema")
	case r.Storage == StorageFull && r.Prompt == nil:
		return fmt.Errorf("$.body.request.prompt: missing (full storage)")
	case r.PromptBytes < 0:
		return fmt.Errorf("$.body.request.promptBytes: negative")
	case r.HasOptions != (r.Options != nil) && r.Storage == StorageFull:
		return fmt.Errorf("$.body.request.options: does not agree with hasOptions")
	case r.HasOutputSchema != (r.OutputSchema != nil) && r.Storage == StorageFull:
		return fmt.Errorf("$.body.request.outputSchema: does not agree with hasOutputSchema")
	}
	return nil
}

func checkOutcome(o Outcome) error {
	wantResult := o.Kind == OutcomeResult
	wantError := o.Kind == OutcomeStartError || o.Kind == OutcomeResultError || o.Kind == OutcomeAbortBeforeStart
	ran := o.Kind != OutcomeStartError && o.Kind != OutcomeAbortBeforeStart
	switch {
	case !wantResult && !wantError && o.Kind != OutcomeAbortAfterStart && o.Kind != OutcomeDispose:
		return fmt.Errorf("$.body.outcome.kind: unknown outcome")
	case wantResult != (o.Result != nil):
		return fmt.Errorf("$.body.outcome.result: only and always with kind %q", OutcomeResult)
	case wantError != (o.Error != nil):
		return fmt.Errorf("$.body.outcome.error: only and always with an error kind")
	case wantError && o.Error.Name == "":
		return fmt.Errorf("$.body.outcome.error.name: empty")
	case ran != (o.StartMillis >= 0), o.StartMillis < -1:
		return fmt.Errorf("$.body.outcome.startMillis: -1 exactly when the child never ran")
	case o.DurationMillis < 0 || o.DurationMillis < o.StartMillis:
		return fmt.Errorf("$.body.outcome.durationMillis: negative or before the start")
	case wantResult && o.Result.Output == nil:
		return fmt.Errorf("$.body.outcome.result.output: missing")
	}
	return nil
}
