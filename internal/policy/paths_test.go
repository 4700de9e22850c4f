package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveExisting(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"ws/sub", "outside/deep"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "outside/deep"), filepath.Join(root, "ws/link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"existing", "ws/sub", "ws/sub"},
		{"missing-leaf", "ws/sub/new.txt", "ws/sub/new.txt"},
		{"missing-dirs", "ws/a/b/c", "ws/a/b/c"},
		{"through-symlink", "ws/link/x", "outside/deep/x"},
		// The kernel applies .. after following the link, so must we.
		{"dotdot-after-symlink", "ws/link/../secret", "outside/secret"},
		{"dotdot-lexical-in-missing", "ws/missing/../sub", "ws/sub"},
		// Once missing is made, missing/.. is ws again, and link a link.
		{"dotdot-out-of-missing-follows-symlink", "ws/missing/../link/x", "outside/deep/x"},
		{"dotdot-within-missing", "ws/missing/a/../b", "ws/missing/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveExisting(root + "/" + tt.in)
			if err != nil {
				t.Fatalf("ResolveExisting: %v", err)
			}
			if want := filepath.Join(root, tt.want); got != want {
				t.Errorf("ResolveExisting(%s) = %s, want %s", tt.in, got, want)
			}
		})
	}
	if _, err := ResolveExisting("relative/path"); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("ResolveExisting(relative) error = %v, want ErrNotAbsolute", err)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p string
		want    bool
	}{
		{"/ws", "/ws", true},
		{"/ws", "/ws/a", true},
		{"/ws", "/wsx", false},
		{"/ws", "/", false},
		{"/", "/anything", true},
	}
	for _, tt := range tests {
		if got := within(tt.root, tt.p); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.root, tt.p, got, tt.want)
		}
	}
}
