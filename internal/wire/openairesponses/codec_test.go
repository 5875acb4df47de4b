package openairesponses

import (
	"net/http"
	"testing"

	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

var codec = wiretest.Codec{
	Render: Render, RenderHang: RenderHang, Decode: Decode,
	RenderJSON: RenderJSON, DecodeJSON: DecodeJSON, ErrorBody: ErrorBody,
	ResponseError: func(status int, body []byte) *model.ProviderError {
		return ResponseError(status, http.StatusText(status), "application/json", body)
	},
}

func TestRoundTrip(t *testing.T) { wiretest.Test(t, codec) }

func FuzzDecode(f *testing.F) { wiretest.Fuzz(f, codec) }
