package replay

import (
	"fmt"
	"io"
	"sort"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/model"
)

// DecodeModel decodes a model file (`acpsnap new -model FILE`): either a
// bare array of entries, served to the primary session, or
//
//	{"primary":[…],"children":{"<tool call id>":[…]}}
//
// where "children" is optional. Decoding is as strict as DecodeScript;
// ReadyDir is left empty.
func DecodeModel(r io.Reader, name string) (ServerConfig, error) {
	d, root, err := readDoc(r, name)
	if err == nil {
		d.isModel = true
		var cfg ServerConfig
		if cfg, err = d.model(root); err == nil {
			return cfg, nil
		}
	}
	return ServerConfig{}, fmt.Errorf("llmreplay: decode model: %w", err)
}

func (d *doc) model(v strictjson.Value) (ServerConfig, error) {
	var cfg ServerConfig
	var err error
	if v.Raw[0] == '[' {
		cfg.Primary, err = d.servable(v)
		return cfg, err
	}
	m, err := d.Members(v, "a model")
	if err != nil {
		return cfg, err
	}
	if err := d.CheckMembers(v, m, []string{"primary"}, []string{"children"}); err != nil {
		return cfg, err
	}
	if cfg.Primary, err = d.servable(m["primary"]); err != nil {
		return cfg, err
	}
	cv, ok := m["children"]
	if !ok {
		return cfg, nil
	}
	children, err := d.Members(cv, "a children")
	if err != nil {
		return cfg, err
	}
	ids := make([]string, 0, len(children))
	for id := range children {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	cfg.Children = map[string]Script{}
	for _, id := range ids {
		if id == "" {
			return cfg, d.Errorf(children[id].Off, children[id].Path, "empty tool call id")
		}
		if cfg.Children[id], err = d.servable(children[id]); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// servable decodes a script the Server is to serve and refuses what the
// chat-completions wire cannot carry faithfully: a model-side error finish
// (reason "error" without a code) other than a ModelStopFormat stop would
// reach the adapter as an INTERNAL provider error, so a recording would
// differ from an in-process replay of the same entry.
func (d *doc) servable(v strictjson.Value) (Script, error) {
	s, err := d.script(v)
	if err != nil {
		return nil, err
	}
	els, _ := d.Elements(v, "entries")
	for i, e := range s {
		if e.Kind != KindChunks {
			continue
		}
		last := e.Chunks[len(e.Chunks)-1]
		if _, ok := ModelStopReason(last); last.Reason == model.FinishError && last.Code == "" && !ok {
			return nil, d.Errorf(els[i].Off, fmt.Sprintf("%s.chunks[%d]", els[i].Path, len(e.Chunks)-1),
				"a model-side error finish cannot go over HTTP unless it reads %q (a finish_reason the API may send); use a throw entry with a code for a provider error", fmt.Sprintf(ModelStopFormat, "X"))
		}
	}
	return s, nil
}
