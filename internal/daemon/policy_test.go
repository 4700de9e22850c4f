package daemon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sidecarhq/sidecar/internal/policy"
)

func TestBuildPolicy(t *testing.T) {
	ws, state, other := t.TempDir(), t.TempDir(), t.TempDir()
	opts := PolicyOptions{Mode: policy.ModeAsk, Workspace: ws, StateDir: state}

	// No policy.yaml in the state dir: the built-in policy alone.
	c, err := BuildPolicy(opts)
	if err != nil {
		t.Fatalf("without a policy file: %v", err)
	}
	if d := c.Describe(); d.PolicyFile != "" || len(d.AllowRules) != 0 {
		t.Errorf("without a policy file: %+v", d)
	}

	// policy.yaml in the state dir is read.
	if err := os.WriteFile(filepath.Join(state, policy.FileName), []byte("allow:\n  - prefix: go test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = BuildPolicy(opts)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Classify("go test ./...", ws); v.Rule != "allow-prefix/go test" {
		t.Errorf("state dir policy.yaml not applied: %+v", v)
	}

	// --policy must exist, and becomes one of Sidecar's own files.
	opts.PolicyFile = filepath.Join(other, "missing.yaml")
	if _, err := BuildPolicy(opts); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--policy missing: %v, want fs.ErrNotExist", err)
	}
	opts.PolicyFile = filepath.Join(other, "p.yaml")
	if err := os.WriteFile(opts.PolicyFile, []byte("deny:\n  - prefix: git push\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = BuildPolicy(opts)
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Classify("cat "+opts.PolicyFile, ws); v.Rule != "hard-deny/sidecar-state" {
		t.Errorf("the --policy file is not guarded: %+v", v)
	}
	if v := c.Classify("go test", ws); v.Decision != policy.Ask {
		t.Errorf("--policy did not replace policy.yaml: %+v", v)
	}
}
