package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// interpreter denies downloaded code given to a shell, an interpreter,
// source or eval, and searches the program text of sh -c, eval, watch and
// trap.
func (d *denyCheck) interpreter(p *program, name string, args []word, redirs []redir, depth int) *denial {
	switch name {
	case "eval":
		var text []string
		for i := range args {
			if d.hasDownloader(p, args[i].node) {
				return &denial{category: catDownloadShell, what: "eval " + args[i].display()}
			}
			text = append(text, args[i].value)
		}
		return d.nested(strings.Join(text, " "), depth)
	case "source", ".":
		if len(args) > 0 && d.hasDownloader(p, args[0].node) {
			return &denial{category: catDownloadShell, what: name + " " + args[0].display()}
		}
		return nil
	case "watch":
		return d.nested(strings.Join(watchCommand(args), " "), depth)
	case "trap":
		// trap's first word is a program the shell runs later.
		if len(args) > 0 && !strings.HasPrefix(args[0].value, "-") {
			return d.nested(args[0].value, depth)
		}
		return nil
	}
	it, ok := interpreterFor(name)
	if !ok {
		return nil
	}
	src := it.source(args)
	if src.inline != nil {
		if d.hasDownloader(p, src.inline.node) {
			return &denial{category: catDownloadShell, what: name + " " + src.inline.display()}
		}
		if it.sh {
			return d.nested(src.inline.value, depth)
		}
	}
	if src.script != nil && d.hasDownloader(p, src.script.node) {
		return &denial{category: catDownloadShell, what: name + " " + src.script.display()}
	}
	if !src.stdin {
		return nil
	}
	for _, r := range redirs {
		switch r.op {
		case syntax.RdrIn, syntax.WordHdoc, syntax.Hdoc, syntax.DashHdoc:
			if d.hasDownloader(p, r.target.node) || d.hasDownloader(p, r.body) {
				return &denial{category: catDownloadShell, what: name + " " + r.op.String() + " " + r.target.display()}
			}
		}
		// A here-document or here-string given to a shell is a program.
		if it.sh {
			var text string
			switch r.op {
			case syntax.WordHdoc:
				text = r.target.value
			case syntax.Hdoc, syntax.DashHdoc:
				text = heredocText(r.body)
			}
			if x := d.nested(text, depth); x != nil {
				return x
			}
		}
	}
	return nil
}

// heredocText is the body of a here-document, with unknown for what bash
// would expand in it.
func heredocText(body *syntax.Word) string {
	if body == nil {
		return ""
	}
	var b strings.Builder
	for _, part := range body.Parts {
		if lit, ok := part.(*syntax.Lit); ok {
			b.WriteString(lit.Value)
		} else {
			b.WriteString(unknown)
		}
	}
	return b.String()
}

// nested parses and searches program text found inside an argument. Text
// that does not parse is searched as far as it does.
func (d *denyCheck) nested(text string, depth int) *denial {
	if depth >= maxNestedPrograms || len(text) > MaxCommandBytes || rawNesting(text) > maxRawNesting {
		return nil
	}
	// What only bash knows becomes a harmless word: "sudo $x" still
	// shows sudo.
	text = strings.ReplaceAll(text, unknown, "_")
	f, err := d.c.parsers.parse(text)
	if err != nil {
		f = parseBashRecovering(text)
	}
	return d.program(walkProgramIn(d.mem, f, text, d.c.home), depth+1)
}

// watchCommand returns the command words of watch's arguments.
func watchCommand(args []word) []string {
	i := 0
options:
	for i < len(args) && strings.HasPrefix(args[i].value, "-") {
		switch args[i].value {
		case "-n", "--interval", "-q", "--equexit":
			i++
		case "--":
			i++
			break options
		}
		i++
	}
	var out []string
	for _, a := range args[min(i, len(args)):] {
		out = append(out, a.value)
	}
	return out
}

// pipeline denies a downloader or network client whose output reaches an
// interpreter that reads its program from standard input, whatever stands
// in between (tee, cat, grep).
//
// A shell fed by echo or printf runs their words as a program, which is
// searched like an sh -c string.
func (d *denyCheck) pipeline(p *program, stages []*syntax.Stmt, depth int) *denial {
	var source, category string
	for i, st := range stages {
		name := d.stdinInterpreter(p, st)
		if source != "" && name != "" {
			return &denial{category: category, what: source + " | " + name}
		}
		if it, _ := interpreterFor(name); it.sh && i > 0 {
			if x := d.nested(echoedText(p, stages[i-1]), depth); x != nil {
				return x
			}
		}
		if name := d.search(p, st, true, func(name string, _ []word) bool { return isDownloader(name) }); name != "" {
			source, category = name, catDownloadShell
		} else if name := d.search(p, st, true, func(name string, _ []word) bool { return isNetClient(name) }); name != "" && source == "" {
			source, category = name, catNetworkShell
		}
	}
	return nil
}

// echoedText returns what an echo or printf stage prints, roughly: its
// words after the command name; "" for any other stage.
func echoedText(p *program, st *syntax.Stmt) string {
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return ""
	}
	cl := p.callOf(ce)
	if cl == nil {
		return ""
	}
	core, _ := unwrap(cl.argv())
	if len(core) == 0 {
		return ""
	}
	sep := " "
	switch commandName(&core[0]) {
	case "echo":
	case "printf":
		sep = "\n" // the format and each argument on a line of their own
	default:
		return ""
	}
	var text []string
	for _, w := range core[1:] {
		text = append(text, w.value)
	}
	return strings.Join(text, sep)
}

// stdinInterpreter returns the name of a command of the stage that reads
// its program from standard input, or "".
func (d *denyCheck) stdinInterpreter(p *program, st *syntax.Stmt) string {
	return d.search(p, st, false, func(name string, args []word) bool {
		if name == "source" || name == "." {
			return len(args) > 0 && (args[0].value == "/dev/stdin" || args[0].value == "-" || args[0].value == "/dev/fd/0")
		}
		it, ok := interpreterFor(name)
		return ok && it.source(args).stdin
	})
}

// search returns the name of the first command under n for which match
// holds, after peeling wrappers; substitutions are searched only when
// intoSubst is set.
func (d *denyCheck) search(p *program, n syntax.Node, intoSubst bool, match func(name string, args []word) bool) string {
	found := ""
	walkNodes(n, func(n syntax.Node) bool {
		if found != "" || isFlat(n) {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return intoSubst
		case *syntax.CallExpr:
			cl := p.callOf(n)
			if cl == nil {
				return true
			}
			core, _ := unwrap(cl.argv())
			if len(core) > 0 {
				if name := commandName(&core[0]); match(name, core[1:]) {
					found = name
					return false
				}
			}
		}
		return true
	})
	return found
}

// hasDownloader reports whether a word holds a substitution that runs a
// downloader.
func (d *denyCheck) hasDownloader(p *program, w *syntax.Word) bool {
	if w == nil {
		return false
	}
	return d.search(p, w, true, func(name string, _ []word) bool { return isDownloader(name) }) != ""
}

func isDownloader(name string) bool {
	switch name {
	case "curl", "wget", "wget2", "fetch", "aria2c":
		return true
	}
	return false
}

func isNetClient(name string) bool {
	switch name {
	case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "telnet", "socat":
		return true
	}
	return false
}
