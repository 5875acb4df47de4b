package replay

import (
	"io"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// doc is a strictly decoded JSON document (scripts, overrides, model files,
// event data) with this package's decoders as methods.
type doc struct {
	*strictjson.Doc
	isModel bool // a model file (DecodeModel): entries may say which request they answer
}

// readDoc reads r whole as one strict JSON document rooted at "$".
func readDoc(r io.Reader, name string) (*doc, strictjson.Value, error) {
	d, root, err := strictjson.Read(r, name)
	return &doc{Doc: d}, root, err
}

// parseData parses the data member of a log event, rooted at "$.data" and
// numbered from the event's line.
func parseData(name string, ev sessionlog.Event) (*doc, strictjson.Value, error) {
	d, v, err := strictjson.Parse(ev.Data, name, ev.Line-1, "$.data")
	return &doc{Doc: d}, v, err
}

// chunk decodes v with Chunk.UnmarshalJSON and re-roots its relative path
// ("$.type") at v's path.
func (d *doc) chunk(v strictjson.Value) (model.Chunk, error) {
	var c model.Chunk
	if err := c.UnmarshalJSON(v.Raw); err != nil {
		return c, d.Relative(v, err)
	}
	return c, nil
}
