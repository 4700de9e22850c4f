package token

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecarhq/sidecar/internal/statedir"
)

func privateDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := statedir.Ensure(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadOrCreate(t *testing.T) {
	dir := privateDir(t)
	if _, err := Load(dir); !errors.Is(err, ErrNoToken) {
		t.Fatalf("Load of an empty dir: %v, want ErrNoToken", err)
	}
	tok, created, err := LoadOrCreate(dir, false)
	if err != nil || !created || len(tok.String()) != 2*Size {
		t.Fatalf("LoadOrCreate = %q, %v, %v", tok, created, err)
	}
	info, err := os.Stat(Path(dir))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, %v", info.Mode(), err)
	}
	again, created, err := LoadOrCreate(dir, false)
	if err != nil || created || again != tok {
		t.Fatalf("second LoadOrCreate = %q, %v, %v; want the same token", again, created, err)
	}
	rotated, created, err := LoadOrCreate(dir, true)
	if err != nil || !created || rotated == tok {
		t.Fatalf("rotate = %q, %v, %v", rotated, created, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		wantErr string
	}{
		{"readable by others", func(t *testing.T, path string) { os.Chmod(path, 0o644) }, "chmod 600"},
		{"readable by group", func(t *testing.T, path string) { os.Chmod(path, 0o640) }, "chmod 600"},
		{"malformed", func(t *testing.T, path string) { os.WriteFile(path, []byte("short\n"), 0o600) }, "malformed"},
		{"symlink", func(t *testing.T, path string) {
			other := path + ".real"
			os.Rename(path, other)
			os.Symlink(other, path)
		}, "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := privateDir(t)
			if _, _, err := LoadOrCreate(dir, false); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, Path(dir))
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load: %v, want an error containing %q", err, tc.wantErr)
			}
			if _, _, err := LoadOrCreate(dir, false); err == nil {
				t.Error("LoadOrCreate accepted what Load refused")
			}
		})
	}
}

func TestMatches(t *testing.T) {
	dir := privateDir(t)
	tok, _, err := LoadOrCreate(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	s := tok.String()
	for presented, want := range map[string]bool{
		s: true, "": false, s[:63]: false, s + "0": false, strings.ToUpper(s): s == strings.ToUpper(s),
	} {
		if got := tok.Matches(presented); got != want {
			t.Errorf("Matches(%q) = %v, want %v", presented, got, want)
		}
	}
	if (Token{}).Matches("") {
		t.Error("the zero Token matched an empty string")
	}
}
