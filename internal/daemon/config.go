// Package daemon wires Sidecar's parts into a running `sidecar serve`: it
// checks the configuration, prepares the state dir, token, audit log,
// policy, approver and runtime, listens, and shuts down cleanly.
package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/server"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

// Defaults for `sidecar serve`.
const (
	DefaultHost          = "127.0.0.1"
	DefaultPort          = 8765
	DefaultTimeout       = 300 * time.Second
	DefaultMaxTimeout    = 600 * time.Second
	DefaultMaxOutput     = 11 << 20
	DefaultMaxBody       = 16 << 20
	DefaultMaxConcurrent = 64
	DefaultApprovalWait  = 120 * time.Second
)

// Config is `sidecar serve`'s flags, parsed.
type Config struct {
	Version               string
	Host                  string
	Port                  int
	Workspace             string
	Approval              string
	Timeout               time.Duration
	MaxTimeout            time.Duration
	MaxOutput             int
	MaxConcurrent         int
	ApprovalWait          time.Duration
	Allow, Deny           []string
	AllowHosts            []string
	AllowOutsideWorkspace bool
	NoAudit               bool
	AuditSync             bool
	RotateToken           bool
	StateDir              string // already resolved (statedir.Resolve)
	// PolicyFile is --policy: the policy file to load instead of
	// StateDir/policy.yaml. It must exist.
	PolicyFile     string
	Stdout, Stderr io.Writer
	// Approver replaces the terminal prompt and the approver socket (the
	// demo and tests use it).
	Approver server.Approver
}

// DefaultConfig returns the flag defaults.
func DefaultConfig() Config {
	return Config{
		Host: DefaultHost, Port: DefaultPort, Approval: string(policy.ModeAsk),
		Timeout: DefaultTimeout, MaxTimeout: DefaultMaxTimeout, MaxOutput: DefaultMaxOutput,
		MaxConcurrent: DefaultMaxConcurrent, ApprovalWait: DefaultApprovalWait, AuditSync: true,
		Stdout: io.Discard, Stderr: io.Discard,
	}
}

// checked is a Config after validation, with every value in its final form.
type checked struct {
	Config
	mode      policy.Mode
	workspace string
	allow     []*regexp.Regexp
	deny      []*regexp.Regexp
}

// check validates the whole configuration before anything is created.
func (c Config) check() (checked, error) {
	var errs []error
	mode, err := policy.ParseMode(c.Approval)
	if err != nil {
		errs = append(errs, err)
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is not a TCP port (0 picks a free one)", c.Port))
	}
	if c.Timeout <= 0 || c.MaxTimeout <= 0 {
		errs = append(errs, errors.New("--timeout and --max-timeout must be positive"))
	}
	if c.Timeout > c.MaxTimeout {
		errs = append(errs, fmt.Errorf("--timeout %s is longer than --max-timeout %s", c.Timeout, c.MaxTimeout))
	}
	if c.MaxOutput < 1024 {
		errs = append(errs, errors.New("--max-output must be at least 1024 bytes"))
	}
	if c.MaxConcurrent < 1 {
		errs = append(errs, errors.New("--max-concurrent must be at least 1"))
	}
	if c.ApprovalWait <= 0 {
		errs = append(errs, errors.New("--approval-timeout must be positive"))
	}
	allow, err := CompileRules("--allow", c.Allow)
	errs = append(errs, err)
	deny, err := CompileRules("--deny", c.Deny)
	errs = append(errs, err)
	ws, err := ResolveDir(c.Workspace)
	if err != nil {
		errs = append(errs, fmt.Errorf("workspace: %w", err))
	}
	if c.StateDir == "" || !filepath.IsAbs(c.StateDir) {
		errs = append(errs, errors.New("state dir must be an absolute path"))
	} else if ws != "" && (ws == c.StateDir || isWithin(ws, c.StateDir) || isWithin(c.StateDir, ws)) {
		errs = append(errs, fmt.Errorf("the state dir %s and the workspace %s overlap; the token and audit log must live outside the workspace", c.StateDir, ws))
	}
	if err := errors.Join(errs...); err != nil {
		return checked{}, err
	}
	return checked{Config: c, mode: mode, workspace: ws, allow: allow, deny: deny}, nil
}

// CompileRules compiles the regular expressions given to a repeatable flag.
func CompileRules(flag string, exprs []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", flag, e, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// ResolveDir expands ~, makes the path absolute and resolves symlinks, so
// every later boundary check compares real paths. It must be a directory.
func ResolveDir(p string) (string, error) {
	if p == "" {
		p = "."
	}
	p, err := statedir.ExpandHome(p)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%q: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%q: %w", p, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%q: %w", p, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%q is not a directory", p)
	}
	return real, nil
}

func isWithin(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../") && rel != "."
}
