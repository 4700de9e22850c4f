package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory:", err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name, flag, env, want string
	}{
		{"default", "", "", filepath.Join(home, ".hermes/plugin-data/sidecar")},
		{"env", "", "/srv/sc", "/srv/sc"},
		{"flag beats env", "/opt/sc", "/srv/sc", "/opt/sc"},
		{"tilde", "~/sc", "", filepath.Join(home, "sc")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.flag, env(tc.env))
			if err != nil || got != tc.want {
				t.Errorf("Resolve = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestEnsure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	if err := Ensure(dir); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v %v", info.Mode(), err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Ensure(dir)
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("Ensure of a 0755 dir: %v", err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o755 {
		t.Error("Ensure changed the mode instead of refusing")
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if err := Ensure(file); err == nil {
		t.Error("Ensure accepted a file")
	}
}
