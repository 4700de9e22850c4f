package policy

import (
	"regexp"
	"strings"
)

// checkTest allows test and [ with tests that only look at files in the
// workspace and at strings.
func checkTest(s *safeCheck, name string, args []word) *unsafe {
	if name == "[" {
		if len(args) == 0 || args[len(args)-1].value != "]" {
			return notSafe("operand", "[ without a closing ]")
		}
		args = args[:len(args)-1]
	}
	return s.testArgs(args, false)
}

// testArgs checks the words of test, [ or [[ (clause). -v and -R look a
// variable up and so evaluate an array index hidden in its name; in [[ the
// arithmetic comparisons evaluate their operands.
func (s *safeCheck) testArgs(args []word, clause bool) *unsafe {
	for i := range args {
		w := &args[i]
		if !w.literal() {
			return notSafeText("not-literal", w.src+" is not a plain literal word")
		}
		switch v := w.value; v {
		case "-v", "-R":
			return notSafe("option", "test %s can run code hidden in an array index", v)
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			if clause {
				return notSafe("arithmetic", "[[ %s ]] evaluates its operands as arithmetic", v)
			}
		case "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-G", "-h", "-k", "-L", "-N", "-O",
			"-p", "-r", "-s", "-S", "-u", "-w", "-x":
			if i+1 < len(args) {
				if u := s.path(&args[i+1]); u != nil {
					return u
				}
			}
		case "-nt", "-ot", "-ef":
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < len(args) {
					if u := s.path(&args[j]); u != nil {
						return u
					}
				}
			}
		}
	}
	return nil
}

// checkCd allows a cd into the workspace from every directory the command
// may be in. A cd in a loop is left out: it could run any number of times.
func checkCd(s *safeCheck, _ string, args []word) *unsafe {
	for i := range args {
		switch v := args[i].value; {
		case v == "-":
			return notSafe("cwd", "cd - goes to a directory Sidecar cannot see")
		case strings.HasPrefix(v, "-") && v != "-L" && v != "-P" && v != "--":
			return notSafe("option", "cd %s is not an option Sidecar knows", v)
		}
	}
	t, ok := cdTarget(args, s.c.home)
	if !ok {
		return notSafe("cwd", "cd goes to a directory Sidecar cannot see")
	}
	if !s.complete {
		return notSafe("cwd", "the cd commands lead to too many directories to follow")
	}
	for _, dir := range s.cwds {
		if _, _, ok := s.cdLeadsTo(dir, t); !ok {
			return notSafeText("outside-workspace", "cd "+t+" leaves the workspace "+s.c.workspace)
		}
	}
	return nil
}

// checkDate allows date alone or with one +FORMAT: other forms set the clock.
func checkDate(_ *safeCheck, _ string, args []word) *unsafe {
	if len(args) == 0 || len(args) == 1 && strings.HasPrefix(args[0].value, "+") {
		return nil
	}
	return notSafe("operand", "date takes only a +FORMAT here")
}

// checkKill allows kill only as a probe: signal 0 (-0, -s 0, -n 0) sent to
// process ids, which delivers nothing and only reports whether each
// process exists and may be signalled, or -l to list signal names. Hermes
// probes its remote code kernel with `kill -0 PID` before every cell.
func checkKill(_ *safeCheck, _ string, args []word) *unsafe {
	for i := range args {
		if !args[i].literal() {
			return notSafeText("not-literal", args[i].src+" is not a plain literal word")
		}
	}
	if len(args) > 0 && (args[0].value == "-l" || args[0].value == "-L") {
		for _, a := range args[1:] {
			if !isDigits(a.value) {
				return notSafe("operand", "kill -l takes only signal numbers here")
			}
		}
		return nil
	}
	rest := args
	switch {
	case len(rest) > 0 && rest[0].value == "-0":
		rest = rest[1:]
	case len(rest) > 1 && (rest[0].value == "-s" || rest[0].value == "-n") && rest[1].value == "0":
		rest = rest[2:]
	default:
		return notSafe("option", "kill is on the safe list only as a probe with signal 0")
	}
	if len(rest) > 0 && rest[0].value == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return notSafe("operand", "kill -0 needs process ids")
	}
	for _, a := range rest {
		if !isDigits(a.value) {
			return notSafe("operand", "kill -0 probes only plain process ids, not %s", a.value)
		}
	}
	return nil
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// checkCommandLookup allows command -v and -V, which only look a name up.
func checkCommandLookup(_ *safeCheck, _ string, args []word) *unsafe {
	if len(args) > 1 && (args[0].value == "-v" || args[0].value == "-V") {
		return nil
	}
	return notSafe("unknown-command", "command runs another command; only command -v is on the safe list")
}

// sedDef allows only sed -n 'ADDRp' [files]: printing a line range.
func sedDef() cmdDef {
	script := regexp.MustCompile(`^(\d+|\$)(,(\d+|\$))?p$`)
	spec := optSpec{short: "nsuzEr", long: []string{"quiet", "silent", "separate", "unbuffered", "null-data", "regexp-extended"}}
	return cmdDef{globs: true, check: func(s *safeCheck, _ string, args []word) *unsafe {
		p, bad := spec.parse(args)
		switch {
		case bad != "":
			return notSafeText("option", "sed "+bad+" is not an option Sidecar knows to be read-only")
		case !p.has("-n", "--quiet", "--silent"):
			return notSafe("option", "sed without -n is not on the safe list")
		case len(p.operands) == 0 || !script.MatchString(p.operands[0].value):
			return notSafe("operand", "only sed -n 'N,Mp' scripts are on the safe list")
		}
		return s.paths(p.operands[1:])
	}}
}

// grepDef allows grep over files in the workspace; -R (follows symlinks)
// is not on the list. The pattern is the first operand unless -e or -f
// gives it.
func grepDef() cmdDef {
	spec := optSpec{
		short: "abcEFGHhiIlLnoPqrsTUuvVwxyzZ", shortVal: "eABCmdDf", shortFile: "f", numeric: true,
		long: []string{"basic-regexp", "extended-regexp", "fixed-strings", "perl-regexp", "ignore-case",
			"no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count", "files-with-matches",
			"files-without-match", "only-matching", "quiet", "silent", "no-messages", "byte-offset",
			"with-filename", "no-filename", "line-number", "initial-tab", "null", "null-data", "text",
			"recursive", "binary", "line-buffered"},
		longVal: []string{"regexp", "file", "max-count", "after-context", "before-context", "context",
			"include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "directories",
			"devices", "group-separator"},
		longOpt:  []string{"color", "colour"},
		longFile: []string{"file", "exclude-from"},
	}
	return cmdDef{globs: true, check: func(s *safeCheck, name string, args []word) *unsafe {
		return s.grep(&spec, name, args)
	}}
}

func (s *safeCheck) grep(spec *optSpec, name string, args []word) *unsafe {
	p, bad := spec.parse(args)
	if bad != "" {
		return notSafeText("option", name+" "+bad+" is not an option Sidecar knows to be read-only")
	}
	if u := s.optionFiles(p); u != nil {
		return u
	}
	files := p.operands
	if !p.has("-e", "-f", "--regexp", "--file") && len(files) > 0 {
		files = files[1:]
	}
	d, _ := p.value("-d", "--directories")
	if len(files) == 0 && (p.has("-r", "--recursive") || d == "recurse") {
		files = []word{litWord(".")}
	}
	return s.paths(files)
}

// rgDef allows ripgrep over the workspace. Not on the list: --pre and
// --pre-glob (run a program on each file), -z (runs decompressors), -L
// (follows symlinks) and --hostname-bin (runs a program).
func rgDef() cmdDef {
	spec := optSpec{
		short: "iSsFwxvclnNHouUaqbIp0.", shortVal: "eABCmMtTrjdEgf", shortFile: "f",
		long: []string{"files", "files-with-matches", "files-without-match", "count", "count-matches", "hidden",
			"no-ignore", "no-ignore-vcs", "no-ignore-parent", "no-ignore-dot", "no-ignore-global",
			"no-ignore-exclude", "no-ignore-files", "text", "json", "no-heading", "heading", "line-number",
			"no-line-number", "column", "no-column", "vimgrep", "null", "null-data", "ignore-case",
			"case-sensitive", "smart-case", "fixed-strings", "word-regexp", "line-regexp", "invert-match",
			"only-matching", "multiline", "multiline-dotall", "quiet", "no-messages", "stats", "trim",
			"passthru", "include-zero", "no-filename", "with-filename", "byte-offset", "pretty", "no-config",
			"one-file-system", "type-list", "crlf", "no-unicode", "binary", "no-binary", "unrestricted",
			"max-columns-preview", "no-max-columns-preview", "version", "pcre2", "no-pcre2", "sort-files",
			"no-require-git", "glob-case-insensitive", "no-glob-case-insensitive", "no-messages"},
		longVal: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "max-count",
			"max-columns", "max-depth", "max-filesize", "threads", "sort", "sortr", "replace", "context",
			"after-context", "before-context", "encoding", "engine", "path-separator", "color", "colors",
			"field-match-separator", "field-context-separator", "context-separator", "ignore-file"},
		longFile: []string{"file", "ignore-file"},
	}
	return cmdDef{globs: true, check: func(s *safeCheck, _ string, args []word) *unsafe {
		return s.rg(&spec, args)
	}}
}

func (s *safeCheck) rg(spec *optSpec, args []word) *unsafe {
	p, bad := spec.parse(args)
	if bad != "" {
		return notSafeText("option", "rg "+bad+" is not an option Sidecar knows to be read-only")
	}
	if u := s.optionFiles(p); u != nil {
		return u
	}
	files := p.operands
	listing := p.has("--files", "--type-list")
	if !listing && !p.has("-e", "-f", "--regexp", "--file") && len(files) > 0 {
		files = files[1:]
	}
	if len(files) == 0 {
		files = []word{litWord(".")}
	}
	return s.paths(files)
}
