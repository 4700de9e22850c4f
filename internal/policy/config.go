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
	MaxNesting        = 32       // deepest nesting of groups, subshells, blocks and substitutions
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
//  2. A local deny rule: a regex (--deny, or the policy file) matching the
//     raw command, or an argv prefix matching any simple command, nested
//     program strings (sh -c, eval, find -exec) included. Deny, approval
//     "rule". This beats every allow rule and every mode.
//  3. A hard-deny category anywhere in the program, a path inside StateDir,
//     OwnFiles or the policy file's sensitive paths, or a write to a
//     protected start-up, credential, hook, cron or launch-agent path.
//     Deny, approval "hard_deny". This beats every allow rule and
//     ModeAllow. A command that does not parse is still searched, as far
//     as it parses. (When both 2 and 3 apply, whichever the search meets
//     first is reported; regex rules are tried first.)
//  4. ModeDeny: Deny, approval "mode".
//  5. A cwd that, symlinks resolved, lies outside Workspace, unless
//     AllowOutsideWorkspace: Deny, approval "workspace".
//  6. A command that cannot be analysed: a parse error, more than
//     MaxCommandBytes, more than MaxSimpleCommands simple commands, or
//     groups, subshells, blocks and substitutions nested deeper than
//     MaxNesting. Ask in ask and allow modes, never Allow, because bash
//     and the parser may disagree; Deny with approval "mode" in read-only
//     mode. No allow rule changes this.
//  7. In ask and allow modes, an allow rule: a regex matching the raw
//     command, or every simple command either on the safe list or matching
//     an allow prefix (with harmless redirections and assignments). Allow,
//     approval "rule".
//  8. Every simple command on the safe list and every redirection harmless:
//     Allow, approval "policy".
//  9. ModeAllow: Allow, approval "policy"; ModeReadOnly: Deny, approval
//     "mode"; ModeAsk: Ask.
type Config struct {
	Mode Mode

	// Allow and Deny are the --allow and --deny flags: regexps matched
	// (unanchored, as written) against the whole raw command string. They
	// come before the policy file's rules.
	Allow, Deny []*regexp.Regexp

	// File is the local policy file (policy.yaml), already loaded; nil
	// when there is none.
	File *File

	// Workspace is the directory the agent works in: absolute and already
	// symlink-resolved. File arguments of safe-list commands must lie in it.
	Workspace string

	// AllowOutsideWorkspace lifts the cwd boundary of step 5. It does not
	// make reads outside the workspace safe: those still need a person.
	AllowOutsideWorkspace bool

	// Home is the user's home directory, for ~ and $HOME. Empty: unknown.
	Home string

	// StateDir is Sidecar's own state directory (token, audit log, approver
	// socket, policy.yaml). Any command naming a path inside it is
	// hard-denied. Empty: no check.
	StateDir string

	// OwnFiles are more of Sidecar's own files outside StateDir, such as a
	// policy file given with --policy: denied like StateDir.
	OwnFiles []string

	// FS is the file system the classifier reads to follow symlinks and to
	// list directories that a glob in a safe command reads. Nil means
	// lexical paths only and no glob is ever safe. The daemon passes OS{}.
	FS FileSystem

	// SearchPath is the daemon's PATH, in order. A command written as an
	// absolute path counts as its bare name when bash would find that very
	// file for the bare name. /bin and /usr/bin always count.
	SearchPath []string
}

// Classifier classifies command strings under one Config. It is immutable
// and safe for concurrent use.
type Classifier struct {
	mode         Mode
	rules        ruleList
	workspace    string
	allowOutside bool
	home         string
	guards       []guard // own and sensitive paths, lexical and resolved forms
	fs           FileSystem
	searchPath   []string
	protected    []string              // directories rm -r must not touch
	writeGuards  map[string]writeGuard // paths no command may write, by path
	guardLens    []bool                // [n] is set when a writeGuards path is n bytes long
	safe         map[string]cmdDef     // the safe list, built once by New
	extraSafe    []string              // names the policy file added
	file         *File
	parsers      *parsers      // reused across calls; holds no results
	walkMemories *walkMemories // likewise
}

// New checks cfg and returns a Classifier for it.
func New(cfg Config) (*Classifier, error) {
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, fmt.Errorf("new classifier: %w", err)
	}
	if !filepath.IsAbs(cfg.Workspace) {
		return nil, fmt.Errorf("%w: workspace %q is not an absolute path", ErrInvalidConfig, cfg.Workspace)
	}
	for name, p := range map[string]string{"home": cfg.Home, "state dir": cfg.StateDir} {
		if p != "" && !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: %s %q is not an absolute path", ErrInvalidConfig, name, p)
		}
	}
	c := &Classifier{
		mode:         cfg.Mode,
		workspace:    filepath.Clean(cfg.Workspace),
		allowOutside: cfg.AllowOutsideWorkspace,
		fs:           cfg.FS,
		safe:         safeCommands(),
		file:         cfg.File,
		parsers:      newParsers(),
		walkMemories: &walkMemories{},
	}
	if cfg.Home != "" {
		c.home = filepath.Clean(cfg.Home)
	}
	for _, d := range cfg.SearchPath {
		if filepath.IsAbs(d) {
			c.searchPath = append(c.searchPath, filepath.Clean(d))
		}
	}
	if err := c.addRules(cfg); err != nil {
		return nil, err
	}
	c.protected = protectedDirs(c.home)
	c.writeGuards = writeGuards(c.home)
	for p := range c.writeGuards {
		if len(p) >= len(c.guardLens) {
			c.guardLens = append(c.guardLens, make([]bool, len(p)+1-len(c.guardLens))...)
		}
		c.guardLens[len(p)] = true
	}
	res := newResolver(cfg.FS)
	ws, ok := res.real(c.workspace)
	if !ok {
		return nil, fmt.Errorf("%w: workspace %s cannot be resolved", ErrInvalidConfig, c.workspace)
	}
	// The caller should pass it resolved; resolving again costs nothing
	// and spares a false "outside" for every path.
	c.workspace = ws
	if err := c.addGuards(cfg, res); err != nil {
		return nil, err
	}
	if cfg.File != nil {
		for _, name := range cfg.File.SafeCommands {
			if _, builtin := c.safe[name]; !builtin {
				c.safe[name] = extraSafeDef()
				c.extraSafe = append(c.extraSafe, name)
			}
		}
	}
	return c, nil
}

// addRules collects the flags' and the file's rules in deciding order.
func (c *Classifier) addRules(cfg Config) error {
	for _, set := range []struct {
		allow bool
		flag  string
		res   []*regexp.Regexp
	}{{false, "--deny", cfg.Deny}, {true, "--allow", cfg.Allow}} {
		for i, re := range set.res {
			if re == nil {
				return fmt.Errorf("%w: %s rule %d is nil", ErrInvalidConfig, set.flag, i)
			}
			c.rules = append(c.rules, &rule{allow: set.allow, re: re, source: set.flag})
		}
	}
	if cfg.File != nil {
		c.rules = append(c.rules, cfg.File.rules()...)
	}
	return nil
}

// addGuards records the paths no command may name: the state dir and
// Sidecar's other files, and the policy file's sensitive paths, each in
// its lexical and, when it differs, its resolved form.
func (c *Classifier) addGuards(cfg Config, res *resolver) error {
	add := func(p, category string) error {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%w: %q is not an absolute path", ErrInvalidConfig, p)
		}
		p = filepath.Clean(p)
		c.guards = append(c.guards, newGuard(p, category, p))
		// The resolved form catches a command that names the path through
		// its real location; failing to resolve leaves the lexical check.
		if r, ok := res.real(p); ok && r != p {
			c.guards = append(c.guards, newGuard(r, category, p))
		}
		return nil
	}
	if cfg.StateDir != "" {
		if err := add(cfg.StateDir, catState); err != nil {
			return err
		}
	}
	for _, f := range cfg.OwnFiles {
		if err := add(f, catState); err != nil {
			return err
		}
	}
	if cfg.File != nil {
		for _, p := range cfg.File.SensitivePaths {
			if err := add(p, catSensitive); err != nil {
				return err
			}
		}
	}
	return nil
}

// WithMode returns a copy of c that uses mode m, for `policy explain
// --approval`. It does not validate m: check it with ParseMode first. A
// classifier with an invalid mode denies every command.
func (c *Classifier) WithMode(m Mode) *Classifier {
	cp := *c
	cp.mode = m
	return &cp
}
