package normalize

import (
	"bytes"
	"encoding/json"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Marshal and Unmarshal are the reference encoding/json round trip the tests
// compare against.
func Marshal(v any) ([]byte, error) {
	b, err := strictjson.Marshal(v)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

func Unmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}
