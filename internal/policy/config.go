package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
)

// Limits past which a command is not analysed but sent to a person (or
// refused in read-only mode): bash and the parser might disagree about it.
const (
	MaxCommandBytes   = 64 << 10 // longest command parsed
	MaxSimpleCommands = 256      // most simple commands in one command string
	MaxNesting        = 32       // deepest nesting of statements
)

// ErrInvalidConfig is returned (wrapped) by New for a config it cannot use.
var ErrInvalidConfig = errors.New("invalid policy config")

// Config is the local policy. Nothing the remote side sends can change it.
//
// Classify evaluates a command in this order; the first step that decides
// wins:
//
//  1. An empty command, a NUL byte, invalid UTF-8 or a relative cwd: Deny
//     (rule "invalid-input").
//  2. A Deny regexp matching the raw command: Deny, approval "rule".
//  3. A hard-deny category anywhere in the program, or the command naming
//     StateDir: Deny, approval "hard_deny". This beats the Allow regexps and
//     ModeAllow. A command that does not parse is still searched, as far as
//     it parses.
//  4. ModeDeny: Deny, approval "mode".
//  5. A cwd that, symlinks resolved, lies outside Workspace, unless
//     AllowOutsideWorkspace: Deny, approval "workspace".
//  6. A command that cannot be analysed: a parse error, more than
//     MaxCommandBytes, more than MaxSimpleCommands simple commands, or
//     statements nested deeper than MaxNesting. Ask in ask and allow modes,
//     never Allow, because bash and the parser may disagree; Deny with
//     approval "mode" in read-only mode.
//  7. An Allow regexp matching the raw command, in ask and allow modes: Allow,
//     approval "rule".
//  8. Every simple command on the safe list and every redirection harmless:
//     Allow, approval "policy".
//  9. ModeAllow: Allow, approval "policy"; ModeReadOnly: Deny, approval
//     "mode"; ModeAsk: Ask.
type Config struct {
	Mode Mode

	// Allow and Deny are the local --allow and --deny rules, matched
	// (unanchored, as written) against the whole raw command string.
	Allow, Deny []*regexp.Regexp

	// Workspace is the directory the agent works in: absolute and already
	// symlink-resolved. File arguments of safe-list commands must lie in it.
	Workspace string

	// AllowOutsideWorkspace lifts the cwd boundary of step 5. It does not
	// make reads outside the workspace safe: those still need a person.
	AllowOutsideWorkspace bool

	// Home is the user's home directory, for ~ and $HOME. Empty: unknown.
	Home string

	// StateDir is Sidecar's own state directory (token, audit log). Any
	// command naming a path inside it is hard-denied. Empty: no check.
	StateDir string

	// ResolvePath resolves the symlinks of an absolute path. Nil means
	// lexical cleaning only. The daemon passes ResolveExisting.
	ResolvePath func(p string) (string, error)
}

// Classifier classifies command strings under one Config. It is immutable
// and safe for concurrent use.
type Classifier struct {
	mode         Mode
	allow, deny  []*regexp.Regexp
	workspace    string
	allowOutside bool
	home         string
	stateDirs    []string // lexical and, when it differs, resolved form
	resolvePath  func(string) (string, error)
	protected    []string          // directories rm -r must not touch
	safe         map[string]cmdDef // the safe list, built once by New
}

// New checks cfg and returns a Classifier for it.
func New(cfg Config) (*Classifier, error) {
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, fmt.Errorf("new classifier: %w", err)
	}
	if !filepath.IsAbs(cfg.Workspace) {
		return nil, fmt.Errorf("%w: workspace %q is not an absolute path", ErrInvalidConfig, cfg.Workspace)
	}
	if cfg.Home != "" && !filepath.IsAbs(cfg.Home) {
		return nil, fmt.Errorf("%w: home %q is not an absolute path", ErrInvalidConfig, cfg.Home)
	}
	if cfg.StateDir != "" && !filepath.IsAbs(cfg.StateDir) {
		return nil, fmt.Errorf("%w: state dir %q is not an absolute path", ErrInvalidConfig, cfg.StateDir)
	}
	for _, set := range [][]*regexp.Regexp{cfg.Allow, cfg.Deny} {
		for i, re := range set {
			if re == nil {
				return nil, fmt.Errorf("%w: rule %d is nil", ErrInvalidConfig, i)
			}
		}
	}
	c := &Classifier{
		mode:         cfg.Mode,
		allow:        append([]*regexp.Regexp(nil), cfg.Allow...),
		deny:         append([]*regexp.Regexp(nil), cfg.Deny...),
		workspace:    filepath.Clean(cfg.Workspace),
		allowOutside: cfg.AllowOutsideWorkspace,
		resolvePath:  cfg.ResolvePath,
		safe:         safeCommands(),
	}
	if cfg.Home != "" {
		c.home = filepath.Clean(cfg.Home)
	}
	c.protected = protectedDirs(c.home)
	if cfg.ResolvePath != nil {
		// The caller should pass it resolved; resolving again costs
		// nothing and spares a false "outside" for every path.
		ws, err := cfg.ResolvePath(c.workspace)
		if err != nil {
			return nil, fmt.Errorf("%w: resolve workspace: %w", ErrInvalidConfig, err)
		}
		c.workspace = filepath.Clean(ws)
	}
	if cfg.StateDir != "" {
		dir := filepath.Clean(cfg.StateDir)
		c.stateDirs = []string{dir}
		// The resolved form catches a command that names the directory
		// through its real path; failing to resolve leaves the lexical
		// check, which still holds.
		if cfg.ResolvePath != nil {
			if r, err := cfg.ResolvePath(dir); err == nil && r != dir {
				c.stateDirs = append(c.stateDirs, filepath.Clean(r))
			}
		}
	}
	return c, nil
}

// WithMode returns a copy of c that uses mode m, for `policy explain
// --approval`. It does not validate m: check it with ParseMode first. A
// classifier with an invalid mode denies every command.
func (c *Classifier) WithMode(m Mode) *Classifier {
	cp := *c
	cp.mode = m
	return &cp
}
