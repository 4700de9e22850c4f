package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a real directory tree: a workspace, a home directory holding
// Sidecar's state directory, and a directory outside both that a symlink in
// the workspace points to (ws/out); ws/deep points to ws/sub/inner.
type fixture struct {
	ws, home, state, outside string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{
		ws:      filepath.Join(root, "ws"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
	}
	fx.state = filepath.Join(fx.home, ".sidecar")
	for _, dir := range []string{fx.ws + "/sub/inner", fx.state, fx.outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{fx.ws + "/f.txt", fx.ws + "/sub/g.txt", fx.outside + "/secret.txt", fx.home + "/notes.txt", fx.state + "/token"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// out leads out of the workspace; deep stays in it, two levels down.
	if err := os.Symlink(fx.outside, fx.ws+"/out"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.ws+"/sub/inner", fx.ws+"/deep"); err != nil {
		t.Fatal(err)
	}
	return fx
}

func (fx fixture) config(mode Mode) Config {
	return Config{Mode: mode, Workspace: fx.ws, Home: fx.home, StateDir: fx.state, FS: OS{}}
}

func (fx fixture) classifier(t testing.TB, cfg Config) *Classifier {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// expand replaces {ws}, {home}, {state} and {outside} in s.
func (fx fixture) expand(s string) string {
	return strings.NewReplacer("{ws}", fx.ws, "{home}", fx.home, "{state}", fx.state, "{outside}", fx.outside).Replace(s)
}

// outcome is the part of a Verdict most tests assert.
type outcome struct {
	Decision Decision
	Approval string
	Rule     string
}

func outcomeOf(v Verdict) outcome { return outcome{v.Decision, v.Approval, v.Rule} }

func safeAllow() outcome { return outcome{Allow, ByPolicy, "safe-list"} }

func ask(rule string) outcome { return outcome{Ask, "", rule} }

func hardDeny(category string) outcome { return outcome{Deny, ByHardDeny, "hard-deny/" + category} }
