//go:build linux

package host

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name        string
		limit       int
		writes      []string
		wantKept    string
		wantOmitted int64
	}{
		{"nothing", 10, nil, "", 0},
		{"under the limit", 10, []string{"ab", "cd"}, "abcd", 0},
		{"at the limit", 4, []string{"ab", "cd"}, "abcd", 0},
		{"over in one write", 3, []string{"abcdef"}, "abc", 3},
		{"over across writes", 3, []string{"ab", "cd", "ef"}, "abc", 3},
		{"zero limit counts all", 0, []string{"abc"}, "", 3},
		{"split two-byte rune moves out", 2, []string{"aé"}, "a", 2},
		{"split three-byte rune moves out", 3, []string{"a€"}, "a", 3},
		{"split four-byte rune moves out", 4, []string{"a😀"}, "a", 4},
		{"whole rune at the cut stays", 3, []string{"aéb"}, "aé", 1},
		{"invalid bytes are not runes to protect", 2, []string{"a\xffb"}, "a\xff", 1},
		{"uncut output keeps a partial rune", 10, []string{"a\xc3"}, "a\xc3", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := capture{limit: tt.limit}
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			kept, omitted := c.cut()
			got := struct {
				Kept    string
				Omitted int64
			}{string(kept), omitted}
			want := struct {
				Kept    string
				Omitted int64
			}{tt.wantKept, tt.wantOmitted}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("capture mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
