package policy

import "strings"

// safeCommands returns the safe list: commands that only read files in the
// workspace or print, with the options each may take.
func safeCommands() map[string]cmdDef {
	m := map[string]cmdDef{
		"pwd":      noOperands(optSpec{short: "LP"}),
		"whoami":   noOperands(optSpec{}),
		"hostname": noOperands(optSpec{}),
		"uname": noOperands(optSpec{short: "asnrvmpio", long: []string{
			"all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine",
			"processor", "hardware-platform", "operating-system"}}),
		"id":       dataOperands(optSpec{short: "agGnruzZ"}, 1),
		"which":    dataOperands(optSpec{short: "as"}, 0),
		"type":     dataOperands(optSpec{short: "afptP"}, 0),
		"printenv": dataOperands(optSpec{short: "0", long: []string{"null"}}, 0),
		"basename": dataOperands(optSpec{short: "az", shortVal: "s", long: []string{"multiple", "zero"}, longVal: []string{"suffix"}}, 0),
		"dirname":  dataOperands(optSpec{short: "z", long: []string{"zero"}}, 0),
		"tr": dataOperands(optSpec{short: "cCdst", long: []string{
			"complement", "delete", "squeeze-repeats", "truncate-set1"}}, 2),

		"ls": fileOperands(optSpec{
			short: "aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ1", shortVal: "ITw",
			long: []string{"all", "almost-all", "author", "escape", "directory", "file-type", "full-time",
				"group-directories-first", "no-group", "human-readable", "si", "dereference-command-line",
				"dereference-command-line-symlink-to-dir", "inode", "kibibytes", "numeric-uid-gid", "literal",
				"hide-control-chars", "show-control-chars", "quote-name", "recursive", "reverse", "size",
				"context", "zero"},
			longVal: []string{"block-size", "format", "hide", "ignore", "indicator-style", "quoting-style",
				"sort", "time", "time-style", "tabsize", "width"},
			longOpt: []string{"color", "hyperlink", "classify"},
		}, true, 0),
		"cat": fileOperands(optSpec{short: "AbeEnstTuv", long: []string{"show-all", "number-nonblank",
			"show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting"}}, false, 0),
		"head": fileOperands(optSpec{short: "qvz", shortVal: "cn", numeric: true,
			long: []string{"quiet", "silent", "verbose", "zero-terminated"}, longVal: []string{"bytes", "lines"}}, false, 0),
		// Not -f/-F: following a file never ends.
		"tail": fileOperands(optSpec{short: "qvzr", shortVal: "cn", numeric: true,
			long: []string{"quiet", "silent", "verbose", "zero-terminated"}, longVal: []string{"bytes", "lines"}}, false, 0),
		"wc": fileOperands(optSpec{short: "cmlLw", long: []string{"bytes", "chars", "lines", "max-line-length", "words"},
			longOpt: []string{"total"}}, false, 0),
		"nl": fileOperands(optSpec{short: "p", shortVal: "bdfhilnsvw", long: []string{"no-renumber"},
			longVal: []string{"body-numbering", "section-delimiter", "footer-numbering", "header-numbering",
				"line-increment", "join-blank-lines", "number-format", "number-separator",
				"starting-line-number", "number-width"}}, false, 0),
		"stat": fileOperands(optSpec{short: "LfZt", shortVal: "c", long: []string{"dereference", "file-system", "terse"},
			longVal: []string{"format", "printf", "cached"}}, false, 0),
		"file": fileOperands(optSpec{short: "bhiklLnNprsSz0", shortVal: "eFPfm", shortFile: "fm",
			long: []string{"brief", "mime", "mime-type", "mime-encoding", "dereference", "no-dereference",
				"keep-going", "raw", "special-files", "uncompress", "uncompress-noreport", "no-pad", "print0",
				"extension", "apple"},
			longVal:  []string{"exclude", "exclude-quiet", "separator", "parameter", "files-from", "magic-file"},
			longFile: []string{"files-from", "magic-file"}}, false, 0),
		// Not -L: following symlinks walks out of the workspace.
		"du": fileOperands(optSpec{short: "0abcDHhklmPSsx", shortVal: "dBtX", shortFile: "X",
			long: []string{"all", "apparent-size", "bytes", "count-links", "dereference-args", "human-readable",
				"inodes", "si", "summarize", "separate-dirs", "total", "one-file-system", "null"},
			longVal:  []string{"max-depth", "block-size", "threshold", "exclude", "exclude-from"},
			longOpt:  []string{"time"},
			longFile: []string{"exclude-from"}}, true, 0),
		// Not -l (follows symlinks), -o (writes a file) or -R.
		"tree": fileOperands(optSpec{short: "adfixpsughDFqNQrtcvUCnJAS", shortVal: "LPI",
			long: []string{"noreport", "dirsfirst", "prune", "gitignore", "matchdirs", "ignore-case", "du",
				"si", "inodes", "device"},
			longVal: []string{"charset", "filelimit", "sort", "timefmt"}}, true, 0),
		"realpath": fileOperands(optSpec{short: "eLmPqsz", long: []string{"canonicalize-existing",
			"canonicalize-missing", "logical", "physical", "quiet", "strip", "no-symlinks", "zero"},
			longVal: []string{"relative-to", "relative-base"}, longFile: []string{"relative-to", "relative-base"}}, false, 0),
		"readlink": fileOperands(optSpec{short: "efmnqsvz", long: []string{"canonicalize", "canonicalize-existing",
			"canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero"}}, false, 0),
		// Not -o/--output, -T (temporary files) or --compress-program (runs one).
		"sort": fileOperands(optSpec{short: "bdfgiMhnRrVcCsuzm", shortVal: "ktS",
			long: []string{"ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
				"ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort", "reverse",
				"version-sort", "merge", "stable", "unique", "zero-terminated"},
			longVal:  []string{"key", "field-separator", "buffer-size", "sort", "parallel", "files0-from", "random-source"},
			longOpt:  []string{"check"},
			longFile: []string{"files0-from", "random-source"}}, false, 0),
		// A second operand is the output file.
		"uniq": fileOperands(optSpec{short: "cdDiuz", shortVal: "fsw",
			long:    []string{"count", "repeated", "ignore-case", "unique", "zero-terminated"},
			longVal: []string{"skip-fields", "skip-chars", "check-chars"},
			longOpt: []string{"all-repeated", "group"}}, false, 1),
		"cut": fileOperands(optSpec{short: "nsz", shortVal: "bcdf",
			long:    []string{"complement", "only-delimited", "zero-terminated"},
			longVal: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}, false, 0),
		// Not -r (follows symlinks) or -l (runs pr).
		"diff": fileOperands(optSpec{short: "abBdeEiNnpqstTuwyZ", shortVal: "CUFIDWSxX", shortFile: "X",
			long: []string{"brief", "report-identical-files", "side-by-side", "new-file", "unidirectional-new-file",
				"ignore-case", "ignore-all-space", "ignore-space-change", "ignore-blank-lines",
				"ignore-tab-expansion", "ignore-trailing-space", "strip-trailing-cr", "text", "expand-tabs",
				"initial-tab", "suppress-common-lines", "left-column", "minimal", "speed-large-files",
				"show-c-function", "normal", "no-dereference", "ed", "rcs"},
			longVal: []string{"label", "show-function-line", "ignore-matching-lines", "exclude", "starting-file",
				"width", "tabsize", "horizon-lines", "from-file", "to-file", "exclude-from"},
			longOpt:  []string{"unified", "context", "color"},
			longFile: []string{"from-file", "to-file", "exclude-from"}}, false, 0),
		"cmp": fileOperands(optSpec{short: "bls", shortVal: "in", long: []string{"print-bytes", "verbose", "quiet", "silent"},
			longVal: []string{"ignore-initial", "bytes"}}, false, 0),
		"base64": fileOperands(optSpec{short: "di", shortVal: "w", long: []string{"decode", "ignore-garbage"},
			longVal: []string{"wrap"}}, false, 1),

		"echo": printing(), "printf": printing(), "true": printing(), "false": printing(), ":": printing(),
		"test": {check: checkTest}, "[": {check: checkTest},
		"cd":   {check: checkCd},
		"date": {check: checkDate},
		"kill": {check: checkKill},
		"set":  {check: checkSet},
		"find": {check: checkFind},
		"tar":  {check: checkTar},
		"sed":  sedDef(),
		"rg":   rgDef(),
		"git":  gitDef(),
	}
	for name, def := range safeWrappers() {
		m[name] = def
	}
	grep := grepDef()
	m["grep"], m["egrep"], m["fgrep"] = grep, grep, grep
	// Not -c: a checksum list names files anywhere.
	sums := fileOperands(optSpec{short: "btz", long: []string{"binary", "text", "tag", "zero"}}, false, 0)
	for _, name := range []string{"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum"} {
		m[name] = sums
	}
	return m
}

// fileOperands is a command whose operands are files it reads; dot means
// no operand reads the current directory; maxOps > 0 caps the operands.
func fileOperands(spec optSpec, dot bool, maxOps int) cmdDef {
	return cmdDef{globs: true, check: func(s *safeCheck, name string, args []word) *unsafe {
		p, bad := spec.parse(args)
		if bad != "" {
			return notSafeText("option", name+" "+bad+" is not an option Sidecar knows to be read-only")
		}
		if maxOps > 0 && len(p.operands) > maxOps {
			return notSafe("operand", "%s takes at most %d file operand(s) here", name, maxOps)
		}
		if u := s.optionFiles(p); u != nil {
			return u
		}
		files := p.operands
		if len(files) == 0 && dot {
			files = []word{litWord(".")}
		}
		return s.paths(files)
	}}
}

// dataOperands is a command whose operands are not files.
func dataOperands(spec optSpec, maxOps int) cmdDef {
	return cmdDef{check: func(s *safeCheck, name string, args []word) *unsafe {
		p, bad := spec.parse(args)
		if bad != "" {
			return notSafeText("option", name+" "+bad+" is not an option Sidecar knows to be read-only")
		}
		if maxOps > 0 && len(p.operands) > maxOps {
			return notSafe("operand", "%s takes at most %d operand(s) here", name, maxOps)
		}
		return nil
	}}
}

// noOperands is a command that takes options only.
func noOperands(spec optSpec) cmdDef {
	return cmdDef{check: func(s *safeCheck, name string, args []word) *unsafe {
		p, bad := spec.parse(args)
		if bad != "" {
			return notSafeText("option", name+" "+bad+" is not an option Sidecar knows to be read-only")
		}
		if len(p.operands) > 0 {
			return notSafe("operand", "%s takes no operands here", name)
		}
		return nil
	}}
}

// printing is a command that only prints its words (or nothing).
func printing() cmdDef {
	return cmdDef{printable: true, check: func(s *safeCheck, name string, args []word) *unsafe {
		// printf -v assigns, and evaluates an array index it is given; a
		// first word from a variable could turn out to be -v.
		if name != "printf" || len(args) == 0 {
			return nil
		}
		if !args[0].literal() {
			return notSafe("not-literal", "printf's first word %s could be an option", args[0].src)
		}
		if v := args[0].value; strings.HasPrefix(v, "-") && v != "--" {
			return notSafe("option", "printf %s is not on the safe list", v)
		}
		return nil
	}}
}

func (s *safeCheck) paths(ws []word) *unsafe {
	for i := range ws {
		if u := s.path(&ws[i]); u != nil {
			return u
		}
	}
	return nil
}

// optionFiles checks the files named by options such as grep -f.
func (s *safeCheck) optionFiles(p parsedArgs) *unsafe {
	for _, o := range p.opts {
		if o.file {
			if u := s.path(o.value); u != nil {
				return u
			}
		}
	}
	return nil
}
