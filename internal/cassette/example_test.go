package cassette_test

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

func ExampleCanonical() {
	a, _ := cassette.Canonical([]byte(`{ "unit": "c", "city": "武汉", "n": 1.50 }`))
	b, _ := cassette.Canonical([]byte(`{"city":"武汉","n":1.50,"unit":"c"}`))
	fmt.Println(string(a))
	fmt.Println(string(a) == string(b))
	_, err := cassette.Canonical([]byte(`{"a":1,"a":2}`))
	fmt.Println(err)
	// Output:
	// {"city":"武汉","n":1.50,"unit":"c"}
	// true
	// $.a: duplicate key
}

func ExampleParseFrame() {
	f := cassette.Frame{Seq: 0, Type: cassette.TypeHeader, Body: []byte(`{"format":"acpsnap-cassette","kind":"tool","policy":{},"version":1}`)}
	f.Hash = f.Sum()
	line := f.Marshal()
	g, err := cassette.ParseFrame(line)
	fmt.Println(g.Type, g.Seq, err, string(g.Marshal()) == string(line))
	line[10] = 'X' // one damaged byte
	_, err = cassette.ParseFrame(line)
	fmt.Println(err)
	// Output:
	// header 0 <nil> true
	// $.hash: does not match the frame's content (damaged or edited)
}
