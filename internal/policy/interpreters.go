package policy

import (
	"slices"
	"strings"
)

// interp describes how an interpreter finds its program in its arguments.
type interp struct {
	sh         bool     // an sh-family shell: its -c string is parsed and searched too
	shellC     bool     // -c makes the first operand the program text (sh, csh)
	inline     string   // options whose value is the program text (python -c, perl -e)
	inlineLong []string // long options whose value is the program text (node --eval)
	named      string   // options whose value names the program (python -m, php -f)
	valued     string   // other options that take a value
	longValued []string // long options that take the next word
	stdin      string   // options that make it read the program from stdin (sh -s)
}

// interpreterFor returns how the interpreter name finds its program, or
// false when name is not one Sidecar knows.
func interpreterFor(name string) (interp, bool) {
	switch {
	case name == "sh" || name == "bash" || name == "dash" || name == "ksh" || name == "mksh" ||
		name == "ash" || name == "zsh" || name == "yash" || name == "posh":
		return interp{sh: true, shellC: true, valued: "oO", stdin: "s", longValued: []string{"rcfile", "init-file"}}, true
	case name == "csh" || name == "tcsh":
		return interp{shellC: true, stdin: "s"}, true
	case name == "fish":
		return interp{inline: "c", valued: "Cdo", inlineLong: []string{"command"}}, true
	case strings.HasPrefix(name, "python") || name == "pypy" || name == "pypy3":
		return interp{inline: "c", named: "m", valued: "WXQ"}, true
	case name == "perl":
		return interp{inline: "eE", valued: "IMmdDxl0"}, true
	case name == "ruby":
		return interp{inline: "e", valued: "IrCEFKTWx"}, true
	case name == "node" || name == "nodejs":
		return interp{inline: "ep", inlineLong: []string{"eval", "print"}, valued: "r", longValued: []string{"require", "import"}}, true
	case name == "php":
		return interp{inline: "rBRE", named: "fF", valued: "cdz"}, true
	}
	return interp{}, false
}

// progSource is where an interpreter reads its program from.
type progSource struct {
	inline *word // the program text given in the arguments
	script *word // the word naming the program file
	stdin  bool  // standard input
}

// source returns where the interpreter, run with args, reads its program.
func (it interp) source(args []word) progSource {
	var ps progSource
	shellInline, named, stdinFlag := false, false, false
	i := 0
	for ; i < len(args); i++ {
		v := args[i].value
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || !(v[0] == '-' || it.shellC && v[0] == '+') {
			break
		}
		if long, ok := strings.CutPrefix(v, "--"); ok {
			name, val, hasVal := strings.Cut(long, "=")
			switch {
			case slices.Contains(it.inlineLong, name) && hasVal:
				w := args[i]
				w.value = val
				ps.inline = &w
			case slices.Contains(it.inlineLong, name) && i+1 < len(args):
				i++
				ps.inline = &args[i]
			case slices.Contains(it.longValued, name) && !hasVal:
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			if it.shellC && ch == 'c' {
				shellInline = true
				continue
			}
			if strings.IndexByte(it.stdin, ch) >= 0 {
				stdinFlag = true
				continue
			}
			isInline, isNamed := strings.IndexByte(it.inline, ch) >= 0, strings.IndexByte(it.named, ch) >= 0
			if !isInline && !isNamed && strings.IndexByte(it.valued, ch) < 0 {
				continue
			}
			var val *word
			if j+1 < len(v) {
				// An attached value keeps the whole word's node, so a
				// substitution in it is still found.
				w := args[i]
				w.value = v[j+1:]
				val = &w
			} else if i+1 < len(args) {
				i++
				val = &args[i]
			}
			if isInline {
				ps.inline = val
			}
			named = named || isNamed
			break
		}
	}
	operands := args[i:]
	switch {
	case shellInline:
		if len(operands) > 0 {
			ps.inline = &operands[0]
		}
	case ps.inline != nil || named:
	case stdinFlag || len(operands) == 0:
		ps.stdin = true
	default:
		switch operands[0].value {
		case "-", "/dev/stdin", "/dev/fd/0":
			ps.stdin = true
		default:
			ps.script = &operands[0]
		}
	}
	return ps
}
