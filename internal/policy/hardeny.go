package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Hard-deny categories. A verdict's rule is "hard-deny/" + category.
const (
	catPrivilege       = "privilege-escalation"
	catRecursiveDelete = "recursive-delete-system"
	catDownloadShell   = "download-to-shell"
	catAppleEvents     = "apple-events"
	catKeychain        = "keychain"
	catNetworkShell    = "network-shell"
	catHistory         = "history-clearing"
	catState           = "sidecar-state"
	catSensitive       = "sensitive-path"
	catProtectedWrite  = "protected-write"
)

// maxNestedPrograms bounds how deep sh -c, eval and find -exec strings are
// searched inside one another.
const maxNestedPrograms = 4

// maxCwds bounds the directories followed through cd commands.
const maxCwds = 16

// denial is a hard-deny finding, or a local deny rule's match.
type denial struct {
	category string
	what     string // what was found, as a person would write it
	rule     *rule  // the local deny rule, when one matched
}

func (d *denial) ruleID() string {
	if d.rule != nil {
		return d.rule.id()
	}
	return "hard-deny/" + d.category
}

func (d *denial) approval() string {
	if d.rule != nil {
		return ByRule
	}
	return ByHardDeny
}

func (d *denial) reason() string {
	if d.rule != nil {
		why := "the local deny rule " + d.rule.text() + " matches " + d.what
		if d.rule.reason != "" {
			why += ": " + d.rule.reason
		}
		return why
	}
	var kind string
	switch d.category {
	case catPrivilege:
		kind = "privilege escalation"
	case catRecursiveDelete:
		kind = "recursive delete of the root, a system directory or the home directory"
	case catDownloadShell:
		kind = "downloaded code fed to a shell or interpreter"
	case catAppleEvents:
		kind = "AppleScript or Automator automation"
	case catKeychain:
		kind = "reading or changing the keychain or secret store"
	case catNetworkShell:
		kind = "a shell over the network"
	case catHistory:
		kind = "clearing or disabling shell history"
	case catState:
		kind = "access to Sidecar's own files"
	case catSensitive:
		kind = "access to a path the local policy marks sensitive"
	case catProtectedWrite:
		kind = "writing to a shell start-up file, credentials, git hooks or configuration, cron or launch agents"
	}
	return kind + " (" + d.what + ") is never run through Sidecar, whatever the mode or local rules"
}

// denyCheck searches a program for local deny prefixes and the hard-deny
// categories.
type denyCheck struct {
	c     *Classifier
	res   *resolver
	mem   *walkMemory // for walking nested program strings
	cwds  []string    // lexical directories the commands may run in
	rules []*rule     // the deny prefix rules
	// writable holds the paths writeTarget found no protected path in.
	writable passedSet
}

// hardDeny searches p, parsed from a command started in cwd (as given and
// resolved), whose cd commands go to targets.
func (c *Classifier) hardDeny(p *program, res *resolver, mem *walkMemory, targets []string, cwd ...string) *denial {
	d := &denyCheck{c: c, res: res, mem: mem, rules: c.rules.prefixes(false)}
	d.cwds, _ = closeCwds(cwd, targets, func(dir, t string, out []string) []string {
		return append(out, cleanPath(joinPath(dir, t)))
	}, maxCwds)
	return d.program(p, 0)
}

// program searches every simple command, compound redirection and
// pipeline of p; depth counts the program strings it is nested in.
func (d *denyCheck) program(p *program, depth int) *denial {
	for _, cl := range p.calls {
		if x := d.call(p, cl, depth); x != nil {
			return x
		}
	}
	for _, r := range p.compound {
		if x := d.redirect(r); x != nil {
			return x
		}
	}
	if len(p.pipelines) == 0 || !feedsInterpreter(p) {
		return nil
	}
	for _, stages := range p.pipelines {
		if x := d.pipeline(p, stages, depth); x != nil {
			return x
		}
	}
	return nil
}

// feedsInterpreter reports whether p runs an interpreter, source, or a
// downloader or network client at all: without one no pipeline of it can
// feed code to a shell, and the pipelines need no search.
func feedsInterpreter(p *program) bool {
	for _, cl := range p.calls {
		if cl.kind != kindCall || len(cl.args) == 0 {
			continue
		}
		core, _ := unwrap(cl.argv())
		if len(core) == 0 {
			continue
		}
		name := commandName(&core[0])
		if _, ok := interpreterFor(name); ok || name == "" || name == "source" || name == "." ||
			isDownloader(name) || isNetClient(name) {
			return true
		}
	}
	return false
}

// call searches one simple command: its words, assignments, redirections
// and, for a command line, what it runs.
func (d *denyCheck) call(p *program, cl *call, depth int) *denial {
	args := cl.argv()
	for i := range args {
		if x := d.word(&args[i]); x != nil {
			return x
		}
	}
	for i := range cl.assigns {
		a := &cl.assigns[i]
		if x := d.word(&a.value); x != nil {
			return x
		}
		if x := historyAssign(a.name, &a.value); x != nil {
			return x
		}
	}
	for _, r := range cl.redirs {
		if x := d.redirect(r); x != nil {
			return x
		}
	}
	if cl.kind != kindCall || len(args) == 0 {
		return nil
	}
	return d.argv(p, args, cl.redirs, depth)
}

// word checks one word for /dev/tcp and for Sidecar's own and sensitive
// paths.
func (d *denyCheck) word(w *word) *denial {
	if strings.Contains(w.value, "/dev/") {
		for _, dev := range []string{"/dev/tcp/", "/dev/udp/"} {
			if strings.Contains(w.value, dev) {
				return &denial{category: catNetworkShell, what: w.display()}
			}
		}
	}
	if g := d.guardNamed(w); g != nil {
		return &denial{category: g.category, what: w.display()}
	}
	return nil
}

// redirect searches a redirection: its target, a truncated history file
// and a write to a protected path.
func (d *denyCheck) redirect(r redir) *denial {
	if x := d.word(&r.target); x != nil {
		return x
	}
	if !isWriteRedirect(r) {
		return nil
	}
	if r.op != syntax.AppOut && r.op != syntax.AppAll && isHistoryFile(&r.target) {
		return &denial{category: catHistory, what: r.op.String() + " " + r.target.display()}
	}
	return d.writeTarget(&r.target, r.fd+r.op.String())
}
