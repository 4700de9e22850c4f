package policy

import (
	"path/filepath"
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
)

// maxNestedPrograms bounds how deep sh -c, eval and find -exec strings are
// searched inside one another.
const maxNestedPrograms = 4

// maxCwds bounds the directories followed through cd commands.
const maxCwds = 16

// denial is a hard-deny finding.
type denial struct {
	category string
	what     string // what was found, as a person would write it
}

func (d *denial) rule() string { return "hard-deny/" + d.category }

func (d *denial) reason() string {
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
		kind = "access to Sidecar's own state directory"
	}
	return kind + " (" + d.what + ") is never run through Sidecar, whatever the mode or local rules"
}

// denyCheck searches a program for the hard-deny categories.
type denyCheck struct {
	c    *Classifier
	cwds []string // lexical directories the commands may run in
}

// hardDeny searches p, parsed from a command started in cwd (as given and
// resolved).
func (c *Classifier) hardDeny(p *program, cwd ...string) *denial {
	d := &denyCheck{c: c}
	d.cwds, _ = closeCwds(cwd, cdTargets(p, c.home), func(dir, t string) []string {
		return []string{filepath.Clean(joinPath(dir, t))}
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
	for _, stages := range p.pipelines {
		if x := d.pipeline(p, stages, depth); x != nil {
			return x
		}
	}
	return nil
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

// word checks one word for /dev/tcp and the state directory.
func (d *denyCheck) word(w *word) *denial {
	for _, dev := range []string{"/dev/tcp/", "/dev/udp/"} {
		if strings.Contains(w.value, dev) {
			return &denial{catNetworkShell, w.display()}
		}
	}
	if d.namesState(w) {
		return &denial{catState, w.display()}
	}
	return nil
}

// redirect searches a redirection: its target, and a truncated history file.
func (d *denyCheck) redirect(r redir) *denial {
	if x := d.word(&r.target); x != nil {
		return x
	}
	switch r.op {
	case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob, syntax.DplOut:
		if isHistoryFile(&r.target) {
			return &denial{catHistory, r.op.String() + " " + r.target.display()}
		}
	}
	return nil
}

// namesState reports whether w, or the part after its first =, names a
// path inside the state directory, joined with each cwd and cleaned.
func (d *denyCheck) namesState(w *word) bool {
	if len(d.c.stateDirs) == 0 {
		return false
	}
	cands := []string{w.value}
	if _, after, ok := strings.Cut(w.value, "="); ok {
		cands = append(cands, after)
	}
	for _, v := range cands {
		// Of a partly unknown word, the directories before the unknown
		// part are still known.
		if i := strings.Index(v, unknown); i >= 0 {
			v = v[:strings.LastIndexByte(v[:i], '/')+1]
		}
		if v == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(v, "~"); ok && (rest == "" || rest[0] == '/') {
			if d.c.home == "" {
				continue
			}
			v = d.c.home + rest
		}
		for _, dir := range d.cwds {
			p := filepath.Clean(joinPath(dir, v))
			for _, sd := range d.c.stateDirs {
				if within(sd, p) {
					return true
				}
			}
		}
	}
	return false
}

// stateRaw reports whether the raw command text names the state directory,
// absolutely or under ~ or $HOME, or whether cwd lies inside it. It holds
// even where the command does not parse.
func (c *Classifier) stateRaw(command string, cwds ...string) bool {
	for _, sd := range c.stateDirs {
		for _, cwd := range cwds {
			if within(sd, cwd) {
				return true
			}
		}
		if containsPath(command, sd) {
			return true
		}
		if c.home != "" && sd != c.home && within(c.home, sd) {
			rel := strings.TrimPrefix(sd, c.home+"/")
			for _, pre := range []string{"~/", "$HOME/", "${HOME}/"} {
				if containsPath(command, pre+rel) {
					return true
				}
			}
		}
	}
	return false
}

// containsPath reports whether p occurs in s followed by a character that
// cannot continue a file name, or by the end.
func containsPath(s, p string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], p)
		if i < 0 {
			return false
		}
		end := off + i + len(p)
		if end == len(s) || !isNameByte(s[end]) {
			return true
		}
		off += i + 1
	}
}

func isNameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
