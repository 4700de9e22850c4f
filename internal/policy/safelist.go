package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unsafe says why a command is not safe. id is the rule suffix:
// "not-safe/" + id.
type unsafe struct {
	id     string
	detail string
}

func notSafe(id, format string, a ...any) *unsafe {
	return &unsafe{id: id, detail: fmt.Sprintf(format, a...)}
}

// notSafeText is notSafe for a detail already in words: the reasons most
// unsafe commands get are built without fmt.
func notSafeText(id, detail string) *unsafe { return &unsafe{id: id, detail: detail} }

// cmdDef is one safe-list command. check sees the arguments after the
// command name, already known to be literal (or printable, for commands
// that only print their arguments).
type cmdDef struct {
	check     func(s *safeCheck, name string, args []word) *unsafe
	printable bool // quoted $name expansions are fine: the words are only printed
	// globs means unquoted glob words are fine: the check passes them to
	// s.paths, which checks every name the glob can match.
	globs bool
	// wrapper, when set, replaces check: the command runs another one
	// given in its arguments, which is checked in turn.
	wrapper func(s *safeCheck, name string, args []word, depth int) *unsafe
}

// safeCheck decides whether each simple command is on the safe list. It
// lives for one Classify call.
type safeCheck struct {
	c        *Classifier
	res      *resolver
	cwds     []string // directories the commands may run in, as in $PWD
	complete bool     // false when the cd commands lead to too many directories
	// intoGuard is the guarded path that a path argument leads into
	// through a symlink although its words do not name it, and
	// intoGuardWord that argument.
	intoGuard     *guard
	intoGuardWord string
	globsChecked  int // glob words path has checked, see argv
	// inside holds the paths path found inside the workspace from every
	// directory the command may run in.
	inside  passedSet
	cdSteps []cdStep
}

// newSafeCheck prepares the safe-list check of a program started in cwd
// (the directory as given, which is what bash has in $PWD, and resolved),
// whose cd commands go to targets.
func (c *Classifier) newSafeCheck(res *resolver, targets []string, cwd ...string) *safeCheck {
	s := &safeCheck{c: c, res: res}
	s.cwds, s.complete = closeCwds(cwd, targets, func(dir, t string, out []string) []string {
		logical, physical, ok := s.cdLeadsTo(dir, t)
		if !ok {
			return out
		}
		return append(out, logical, physical)
	}, maxCwds)
	return s
}

// cdLeadsTo returns where cd t from dir goes: the logical path bash puts in
// $PWD (.. taken lexically) and the physical one (cd -P, or bash's fallback
// when the logical one fails). ok is false unless both lie in the workspace.
func (s *safeCheck) cdLeadsTo(dir, t string) (logical, physical string, ok bool) {
	// The closure of the cwds asks first, then each cd command again.
	for i := range s.cdSteps {
		if st := &s.cdSteps[i]; st.dir == dir && st.target == t {
			return st.logical, st.physical, st.ok
		}
	}
	logical = cleanPath(joinPath(dir, t))
	rl, okL := s.res.real(logical)
	physical, okP := s.res.realJoin(dir, t)
	ok = okL && okP && within(s.c.workspace, rl) && within(s.c.workspace, physical)
	if len(s.cdSteps) < maxPassed {
		s.cdSteps = append(s.cdSteps, cdStep{dir, t, logical, physical, ok})
	}
	return logical, physical, ok
}

// cdStep is an answer of cdLeadsTo.
type cdStep struct {
	dir, target       string
	logical, physical string
	ok                bool
}

// call returns why cl is not safe, or nil.
func (s *safeCheck) call(cl *call) *unsafe {
	for _, r := range cl.redirs {
		if u := s.redirect(r); u != nil {
			return u
		}
	}
	switch cl.kind {
	case kindRedirOnly:
		return nil
	case kindDecl:
		return notSafeText("declaration", cl.args[0].value+" sets shell variables or their attributes")
	case kindLet, kindArith:
		return notSafe("arithmetic", "arithmetic evaluation can run code hidden in variables")
	case kindTest:
		return s.testArgs(cl.args[1:len(cl.args)-1], true)
	}
	if len(cl.args) == 0 {
		return s.assignsOnly(cl.assigns)
	}
	if len(cl.assigns) > 0 {
		return notSafeText("assignment", "it runs with variables set before it ("+cl.assigns[0].src+")")
	}
	if name := cl.args[0].value; name == "cd" && cl.inLoop {
		return notSafe("cwd", "a cd in a loop can run any number of times")
	}
	return s.argv(cl.args, 0)
}

// argv returns why the command line args, after its assignments and
// redirections, is not safe, or nil; depth counts the wrappers around it.
func (s *safeCheck) argv(args []word, depth int) *unsafe {
	name, u := s.commandName(&args[0])
	if u != nil {
		return u
	}
	def, ok := s.c.safe[name]
	if !ok {
		return notSafeText("unknown-command", name+" is not on the safe list")
	}
	rest := args[1:]
	globs := 0
	for i := range rest {
		w := &rest[i]
		if w.subst {
			return notSafeText("not-literal", w.src+" holds a command or process substitution")
		}
		if u := suspiciousWord(w); u != nil {
			return u
		}
		if w.glob && def.globs && !w.params && !w.opaque {
			globs++
			continue
		}
		if !w.literal() && !(def.printable && !w.opaque && !w.glob && !w.bareParam) {
			return notSafeText("not-literal", w.src+" is not a plain literal word")
		}
	}
	if def.wrapper != nil {
		return def.wrapper(s, name, rest, depth)
	}
	before := s.globsChecked
	if u := def.check(s, name, rest); u != nil {
		return u
	}
	// A glob that expands anywhere but in a file operand would put names
	// where the check never looked (an option's value, grep's pattern).
	if s.globsChecked-before < globs {
		return notSafe("not-literal", "%s expands a glob where it does not name files", name)
	}
	return nil
}

// commandName returns the safe-list name a command word runs: a plain
// name, a path in /bin or /usr/bin, or a path that bash would also find
// for the plain name on the daemon's PATH.
func (s *safeCheck) commandName(w *word) (string, *unsafe) {
	if !w.literal() || w.tilde {
		return "", notSafeText("not-literal", "the command name "+w.src+" is not a plain literal word")
	}
	v := w.value
	if !isPlainASCII(v) {
		return "", notSafe("unicode", "the command name %s holds characters outside plain ASCII", w.src)
	}
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return v, nil
	}
	dir, name := v[:i], v[i+1:]
	if dir != "/bin" && dir != "/usr/bin" && s.firstOnPath(name) != filepath.Clean(dir) {
		return "", notSafe("command-path", "%s is not the %s that the daemon's PATH finds", v, name)
	}
	return name, nil
}

// firstOnPath returns the first directory of the daemon's PATH that holds
// name, as bash would find it, or "".
func (s *safeCheck) firstOnPath(name string) string {
	if s.c.fs == nil || name == "" || name == "." || name == ".." {
		return ""
	}
	for _, dir := range s.c.searchPath {
		fi, err := s.c.fs.Lstat(dir + "/" + name)
		if err == nil && !fi.IsDir() {
			return dir
		}
	}
	return ""
}

// assignsOnly allows NAME=value statements that only set a shell variable
// for later words of the same command (Hermes keeps $? this way). Names
// with capitals are left out: the environment and the shell's own special
// variables are spelled in capitals, and a proxy setting changes where
// traffic goes.
func (s *safeCheck) assignsOnly(as []assign) *unsafe {
	for _, a := range as {
		switch {
		case a.complex:
			return notSafe("assignment", "%s assigns to an array or an index", a.src)
		case !harmlessName(a.name):
			return notSafeText("assignment", a.src+" sets a variable that can change how commands run")
		case a.value.opaque || a.value.glob:
			return notSafeText("not-literal", a.src+" assigns something other than a literal or a $name")
		}
	}
	return nil
}

// harmlessName reports whether setting the variable name cannot change
// how a later command runs: lower case, and not a proxy setting.
func harmlessName(name string) bool {
	return strings.ToLower(name) == name && !strings.HasSuffix(name, "_proxy")
}

// redirect returns why r is not harmless: only input from files in the
// workspace, output to /dev/null (or the output already open), descriptor
// copies and literal here-documents are.
func (s *safeCheck) redirect(r redir) *unsafe {
	if strings.Trim(r.fd, "0123456789") != "" {
		return notSafe("redirect", "%s%s opens a descriptor held in a variable", r.fd, r.op)
	}
	t := &r.target
	// shown is only needed for a reason, which most redirections never get.
	shown := func() string { return r.fd + r.op.String() + t.display() }
	switch r.op {
	case syntax.RdrIn:
		if t.literal() && t.value == "/dev/null" {
			return nil
		}
		return s.path(t)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		if t.literal() && isSink(t.value) {
			return nil
		}
		return notSafeText("redirect", shown()+" writes to a file")
	case syntax.DplIn, syntax.DplOut:
		if t.literal() && (t.value == "-" || t.value != "" && strings.Trim(t.value, "0123456789") == "") {
			return nil
		}
		if r.op == syntax.DplOut && t.literal() && isSink(t.value) {
			return nil
		}
		return notSafeText("redirect", shown()+" writes to a file")
	case syntax.Hdoc, syntax.DashHdoc:
		if r.body != nil {
			for _, p := range r.body.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					return notSafe("not-literal", "the here-document expands parameters or substitutions")
				}
			}
		}
		return nil
	case syntax.WordHdoc:
		if t.literal() {
			return nil
		}
		return notSafe("not-literal", "the here-string %s is not a plain literal word", t.src)
	}
	return notSafeText("redirect", shown()+" opens a file for writing")
}

func isSink(v string) bool { return v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr" }
