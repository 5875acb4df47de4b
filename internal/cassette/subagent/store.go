package subagent

import (
	"encoding/json"
	"fmt"
)

// store fills the interaction's stored request and redacts its outcome;
// the fingerprints were taken before, from the unredacted values. It
// returns the unredacted result with its output in canonical form.
func (r *Recorder) store(it *Interaction, req Request) (Result, error) {
	sr := StoredRequest{Storage: r.s.storage, PromptBytes: len(req.Prompt), ToolFilter: req.ToolFilter,
		HasOptions: req.Options != nil, HasOutputSchema: req.OutputSchema != nil}
	if r.s.storage == StorageFull {
		prompt, _ := r.red.text(req.Prompt)
		sr.Prompt = &prompt
		var err error
		if sr.Options, _, err = r.redactJSON(req.Options); err != nil {
			return Result{}, fmt.Errorf("request options: %w", err)
		}
		if sr.OutputSchema, _, err = r.redactJSON(req.OutputSchema); err != nil {
			return Result{}, fmt.Errorf("request output schema: %w", err)
		}
	}
	it.Request = sr
	var live Result
	if res := it.Outcome.Result; res != nil {
		out, err := canonical(res.Output)
		if err != nil {
			return Result{}, fmt.Errorf("result output: %w", err)
		}
		live = Result{Output: out, StopReason: res.StopReason}
	}
	changed, err := r.redactOutcome(&it.Outcome)
	if err != nil {
		return Result{}, fmt.Errorf("outcome: %w", err)
	}
	it.Redacted = changed
	return live, nil
}

func (r *Recorder) redactOutcome(o *Outcome) (bool, error) {
	changed := false
	if o.Error != nil {
		o.Error.Message, changed = r.red.text(o.Error.Message)
	}
	if o.Result != nil {
		out, ch, err := r.redactJSON(o.Result.Output)
		if err != nil {
			return false, err
		}
		res := *o.Result
		res.Output = out
		o.Result = &res
		changed = changed || ch
	}
	return changed, nil
}

// redactJSON returns the redacted canonical JSON of v (nil stays nil).
func (r *Recorder) redactJSON(v any) (json.RawMessage, bool, error) {
	if v == nil {
		return nil, false, nil
	}
	tree, err := toTree(v)
	if err != nil {
		return nil, false, err
	}
	out, changed, err := r.red.tree(tree)
	if err != nil {
		return nil, false, err
	}
	raw, err := canonical(out)
	return raw, changed, err
}
