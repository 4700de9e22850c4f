package policy

import "fmt"

// maxRawNesting caps the brackets open at once in the raw text, checked
// before parsing: the parser's time grows faster than linearly with
// nesting (about 5 ms at this depth, a second at 64 KiB of "("). Below it,
// a command nested deeper than MaxNesting is still parsed and searched for
// hard-deny categories before it is refused as too deep.
const maxRawNesting = 1000

// analysis is everything the classifier learnt about one command string.
type analysis struct {
	prog      *program
	cdTargets []string  // where its literal cd commands go
	res       *resolver // the call's own: it caches what it looked up
	cwd       string    // as given, cleaned
	realCwd   string    // resolved when possible
	cwdInside bool
	denial    *denial
	limit     *limitHit // why the command was not analysed in full
	commands  []SimpleCommand
	safe      bool
	unsafe    *unsafe // the first reason it is not safe
	// ruled is the first allow prefix rule (in rule order) that the
	// program needs, when every simple command is safe or matches one
	// and nothing else about it is unsafe; nil otherwise.
	ruled *rule
}

// limitHit is step 6 of the evaluation order.
type limitHit struct {
	rule   string
	detail string
}

// analyze parses and walks command, started in the clean absolute cwd,
// searches it for hard-deny categories and, when it could be analysed in
// full, checks each simple command against the safe list. list asks for
// the simple commands to be described as well (analysis.commands).
func (c *Classifier) analyze(command, cwd string, mem *walkMemory, list bool) *analysis {
	a := &analysis{cwd: cwd, realCwd: cwd, res: mem.resolver(c.fs)}
	if r, ok := a.res.real(cwd); ok {
		a.realCwd = r
		a.cwdInside = within(c.workspace, r)
	}
	if g := c.rawGuard(command, a.cwd, a.realCwd); g != nil {
		a.denial = &denial{category: g.category, what: "the command names or runs in " + g.shown}
	}
	switch {
	case len(command) > MaxCommandBytes:
		a.limit = &limitHit{"too-long", fmt.Sprintf("the command is longer than %d bytes", MaxCommandBytes)}
		return a
	case rawNesting(command) > maxRawNesting:
		a.limit = &limitHit{"too-deep", "the command nests brackets too deeply to analyse"}
		return a
	}
	f, err := c.parsers.parse(command)
	if err != nil {
		a.limit = &limitHit{"unparsable", fmt.Sprintf("the command does not parse as bash (%v)", err)}
		f = parseBashRecovering(command)
	}
	a.prog = walkProgramIn(mem, f, command, c.home)
	a.cdTargets = cdTargets(a.prog, c.home)
	if a.denial == nil {
		a.denial = c.hardDeny(a.prog, a.res, mem, a.cdTargets, a.cwd, a.realCwd)
	}
	if a.limit == nil {
		switch {
		case len(a.prog.calls) > MaxSimpleCommands:
			a.limit = &limitHit{"too-many-commands", fmt.Sprintf("the command holds more than %d simple commands", MaxSimpleCommands)}
		case a.prog.depth > MaxNesting:
			a.limit = &limitHit{"too-deep", fmt.Sprintf("the command nests groups, subshells, blocks or substitutions more than %d deep", MaxNesting)}
		}
	}
	a.describe(c, list)
	return a
}

// describe checks, when the program was analysed in full, whether each
// simple command is safe, and whether allow prefix rules cover the rest;
// with list it also fills in the simple commands, with why each is not
// safe.
func (a *analysis) describe(c *Classifier, list bool) {
	calls := a.prog.calls
	if len(calls) > MaxSimpleCommands {
		calls = calls[:MaxSimpleCommands]
	}
	var s *safeCheck
	if a.limit == nil {
		s = c.newSafeCheck(a.res, a.cdTargets, a.cwd, a.realCwd)
		a.safe = true
	}
	allowRules := c.rules.prefixes(true)
	ruledOK := s != nil && len(allowRules) > 0
	firstRule := len(allowRules)
	if list {
		a.commands = describeCalls(calls)
	}
	for i, cl := range calls {
		var sc *SimpleCommand
		if list {
			sc = &a.commands[i]
		}
		if s != nil {
			if u := s.call(cl); u != nil {
				if sc != nil {
					sc.Why = u.detail
				}
				a.markUnsafe(u)
				if i := s.allowedByRule(cl, allowRules); i >= 0 {
					firstRule = min(firstRule, i)
				} else {
					ruledOK = false
				}
			} else if sc != nil {
				sc.Safe = true
			}
		}
	}
	if s == nil {
		return
	}
	if s.intoGuard != nil && a.denial == nil {
		a.denial = &denial{category: s.intoGuard.category, what: s.intoGuardWord + ", through a symlink"}
	}
	for _, r := range a.prog.compound {
		if u := s.redirect(r); u != nil {
			a.markUnsafe(u)
			ruledOK = false
		}
	}
	for i := range a.prog.notes {
		a.markUnsafe(&a.prog.notes[i])
		ruledOK = false
	}
	if ruledOK && firstRule < len(allowRules) {
		a.ruled = allowRules[firstRule]
	}
}

func (a *analysis) markUnsafe(u *unsafe) {
	a.safe = false
	if a.unsafe == nil {
		a.unsafe = u
	}
}

// describeCalls returns the SimpleCommands shown for calls, before their
// safety is known. Their words and redirections share one array each.
func describeCalls(calls []*call) []SimpleCommand {
	nArgs, nRedirs := 0, 0
	for _, cl := range calls {
		nArgs += len(cl.args)
		nRedirs += len(cl.redirs) + len(cl.inherited)
	}
	out := make([]SimpleCommand, len(calls))
	args := make([]string, nArgs)
	var redirs []Redirect
	if nRedirs > 0 {
		redirs = make([]Redirect, nRedirs)
	}
	for i, cl := range calls {
		sc := &out[i]
		n := len(cl.args)
		sc.Args, args = args[:n:n], args[n:]
		sc.Literal = true
		for j := range cl.args {
			sc.Args[j] = cl.args[j].display()
			sc.Literal = sc.Literal && cl.args[j].literal()
		}
		if cl.kind == kindCall {
			for _, as := range cl.assigns {
				sc.Assigns = append(sc.Assigns, as.src)
				sc.Literal = sc.Literal && as.value.literal() && !as.complex
			}
		}
		if n := len(cl.redirs) + len(cl.inherited); n > 0 {
			sc.Redirects, redirs = redirs[:0:n], redirs[n:]
			for _, rs := range [2][]redir{cl.redirs, cl.inherited} {
				for _, r := range rs {
					sc.Redirects = append(sc.Redirects, r.display())
					sc.Literal = sc.Literal && r.target.literal()
				}
			}
		}
	}
	return out
}

// rawNesting returns the most brackets open at once in s, quotes ignored:
// an upper bound of what the parser will have to nest.
func rawNesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
