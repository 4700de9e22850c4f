//go:build linux

package host

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestWrapperScriptGolden(t *testing.T) {
	got, err := wrapperScript("0123456789abcdef0123456789abcdef", "/work/it's here", "echo 'hi' && exit 3")
	if err != nil {
		t.Fatalf("wrapperScript: %v", err)
	}
	checkGolden(t, "wrapper.golden", got)
	got, err = plainWrapperScript("0123456789abcdef0123456789abcdef", "/work/it's here", "echo 'hi' && ls")
	if err != nil {
		t.Fatalf("plainWrapperScript: %v", err)
	}
	checkGolden(t, "plain-wrapper.golden", got)
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("wrapper script mismatch (-want +got):\n%s", diff)
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"empty", "", "''", nil},
		{"plain", "abc", "'abc'", nil},
		{"single quote", "it's", `'it'\''s'`, nil},
		{"specials stay literal", "$x `y` \\ \" \n", "'$x `y` \\ \" \n'", nil},
		{"non-printable kept as bytes", "a\u200bb\xff", "'a\u200bb\xff'", nil},
		{"NUL refused", "a\x00b", "", ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := quote(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("quote(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("quote(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
