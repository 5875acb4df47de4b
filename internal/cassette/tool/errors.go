package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Code is the error code of every replay mismatch.
const Code = "CASSETTE_MISMATCH"

// ErrMismatch matches (errors.Is) every *MismatchError.
var ErrMismatch = errors.New(Code)

// MismatchError is a selected call that replay refuses: the first one that
// differs from the cassette (in path, tool, arguments or order, or a call
// beyond the recorded ones), and every selected call after it, which the
// first one poisoned. It names the call by ordinal, path and tool and its
// arguments by fingerprint only; it never carries arguments or results.
type MismatchError struct {
	Ordinal int    // the call's ordinal in start order at its path
	Path    string // the call's structural path
	Tool    string
	Reason  string         // what differs ("arguments differ (sha256:… recorded sha256:…)")
	Cause   *MismatchError // for a call refused because the player is poisoned: the first mismatch
}

func (e *MismatchError) Error() string {
	head := fmt.Sprintf("tool cassette: %s: call %d (%s, %s)", Code, e.Ordinal, e.Path, e.Tool)
	if e.Cause != nil {
		return fmt.Sprintf("%s: refused, the player is poisoned since call %d: %s", head, e.Cause.Ordinal, e.Cause.Reason)
	}
	return head + ": " + e.Reason
}

// Is makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// Code returns Code, for callers that render error codes.
func (e *MismatchError) Code() string { return Code }

// RecordedError is a tool error served from a cassette: the error the
// body returned when it was recorded, by its message.
type RecordedError struct {
	Message string
}

func (e *RecordedError) Error() string { return e.Message }

// fingerprint names canonical arguments in diagnostics: a short SHA-256.
// It is unsalted: low-entropy arguments can be guessed from it.
func fingerprint(canon []byte) string {
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:6])
}
