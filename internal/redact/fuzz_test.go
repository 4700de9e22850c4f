package redact

import (
	"testing"
	"unicode/utf8"
)

// FuzzCommand checks the properties every caller relies on: Command never
// panics, is idempotent, and keeps valid UTF-8 valid. Seeds live in
// testdata/fuzz/FuzzCommand.
func FuzzCommand(f *testing.F) {
	f.Fuzz(func(t *testing.T, in string) {
		once := Command(in)
		if twice := Command(once); twice != once {
			t.Fatalf("not idempotent:\n in:    %q\n once:  %q\n twice: %q", in, once, twice)
		}
		if utf8.ValidString(in) && !utf8.ValidString(once) {
			t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", in, once)
		}
	})
}
