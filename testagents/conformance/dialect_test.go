package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// TestClientsCoverTheTable: the agent speaks every dialect of the table,
// each at a model call endpoint the table names, so a new dialect fails
// here until the agent can build its requests.
func TestClientsCoverTheTable(t *testing.T) {
	for _, d := range dialect.Table {
		w, err := speak(d.Name)
		if err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		path, _, _ := strings.Cut(w.path, "?")
		if e, _, ok := d.Route(path); !ok || e.Kind != dialect.Call {
			t.Errorf("%s: the agent calls %s, which is no model call endpoint of the dialect", d.Name, w.path)
		}
	}
}

// TestUnknownDialect: a dialect the table does not hold, or none, stops
// the agent before it speaks, with the dialects it could have named;
// nothing falls back to another dialect.
func TestUnknownDialect(t *testing.T) {
	for _, name := range []string{"", "openai-chats"} {
		err := Serve(context.Background(), Behaviour{Dialect: name}, strings.NewReader(""), &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), "CONF_DIALECT") || !strings.Contains(err.Error(), dialect.List(nil)) {
			t.Errorf("Serve with dialect %q: %v, want CONF_DIALECT: unknown dialect naming %s", name, err, dialect.List(nil))
		}
	}
}
