package sse_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire/sse"
)

func ExampleReader() {
	r := sse.NewReader(strings.NewReader(": keep-alive\n\nevent: ping\ndata: {}\n\ndata: a\ndata: b\n\n"))
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		fmt.Printf("type=%q data=%q dispatched=%v bytes=%q\n", ev.Type(), ev.Data(), ev.HasData(), ev.Bytes())
	}
	// Output:
	// type="" data="" dispatched=false bytes=": keep-alive\n\n"
	// type="ping" data="{}" dispatched=true bytes="event: ping\ndata: {}\n\n"
	// type="" data="a\nb" dispatched=true bytes="data: a\ndata: b\n\n"
}
