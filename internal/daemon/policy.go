package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/sidecarhq/sidecar/internal/policy"
)

// PolicyOptions are what the classifier is built from, the same for
// `sidecar serve` and `sidecar policy explain|show`.
type PolicyOptions struct {
	Mode                  policy.Mode
	Allow, Deny           []*regexp.Regexp
	Workspace             string // absolute, symlinks resolved
	AllowOutsideWorkspace bool
	StateDir              string // absolute
	// PolicyFile is --policy; "" means StateDir/policy.yaml when it
	// exists, and no policy file when it does not.
	PolicyFile string
}

// BuildPolicy loads the policy file and returns the classifier. A --policy
// file outside the state directory becomes one of Sidecar's own files,
// which no command may name.
func BuildPolicy(o PolicyOptions) (*policy.Classifier, error) {
	home := homeDir()
	path, explicit := o.PolicyFile, o.PolicyFile != ""
	if !explicit {
		path = filepath.Join(o.StateDir, policy.FileName)
	}
	var own []string
	file, err := policy.LoadFile(path, home)
	switch {
	case err == nil && explicit:
		abs, absErr := filepath.Abs(path)
		if absErr != nil {
			return nil, fmt.Errorf("policy file: %w", absErr)
		}
		own = append(own, abs)
	case err == nil:
	case !explicit && errors.Is(err, fs.ErrNotExist):
		file = nil // no policy.yaml: the built-in policy alone
	default:
		return nil, fmt.Errorf("policy file: %w", err)
	}
	c, err := policy.New(policy.Config{
		Mode: o.Mode, Allow: o.Allow, Deny: o.Deny, File: file, Workspace: o.Workspace,
		AllowOutsideWorkspace: o.AllowOutsideWorkspace, Home: home, StateDir: o.StateDir, OwnFiles: own,
		FS: policy.OS{}, SearchPath: filepath.SplitList(os.Getenv("PATH")),
	})
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return c, nil
}
