//go:build linux

package host

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stateless reports whether command provably cannot change the directory or
// the variables of the shell that runs it, so that the wrapper need not
// report them: the session's cwd and exports after it are the ones before
// it. Most of what an agent runs is like this (`ls`, `git status`,
// `pytest -x | tail`), and the EXIT trap that reports the state costs more
// than the rest of the wrapper together (docs/benchmarks.md).
//
// It errs one way only: anything it cannot rule out makes the command
// stateful and the trap is kept. Only a shell builtin or a shell
// construct can change the shell's own directory or variables, so a
// command is stateless when it parses, every command it names is a plain
// word naming no builtin but `:`, `true`, `false` and `echo`, and nothing
// in it can assign: no assignments, declarations, functions, `for` loops,
// coprocesses, arithmetic (which assigns with `=`, `++`, `+=` …), array
// subscripts or `${!x}` (whose text is evaluated as arithmetic),
// `${x:=y}`, `[[ ]]` (whose -eq operands and -v subscripts are
// arithmetic), or `{var}>` redirections. Subshells and command
// substitutions are held to the same rules, though what they change
// would not outlive them. A command longer than maxStatelessScan keeps
// the trap unread: against such a command the trap costs little, and
// parsing it twice (the policy did once) would not.
func stateless(command string) bool {
	if len(command) > maxStatelessScan {
		return false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *syntax.Assign, *syntax.DeclClause, *syntax.FuncDecl, *syntax.ForClause,
			*syntax.CoprocClause, *syntax.LetClause, *syntax.ArithmCmd, *syntax.ArithmExp,
			*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.TestClause, *syntax.TestDecl:
			ok = false
		case *syntax.ParamExp:
			ok = n.Index == nil && !n.Excl && n.Slice == nil &&
				(n.Exp == nil || n.Exp.Op != syntax.AssignUnset && n.Exp.Op != syntax.AssignUnsetOrNull)
		case *syntax.Redirect:
			ok = n.N == nil || !strings.HasPrefix(n.N.Value, "{")
		case *syntax.CallExpr:
			ok = len(n.Args) == 0 || harmlessName(n.Args[0])
		}
		return ok
	})
	return ok
}

// maxStatelessScan is the longest command stateless reads.
const maxStatelessScan = 4 << 10

// harmlessName reports whether w, a command's first word, is spelled
// plainly (no quoting, escapes, expansions, globs or braces, any of which
// could spell a builtin) and names no builtin that could change the
// shell's directory or variables.
func harmlessName(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || lit.Value == "" {
		return false
	}
	for _, c := range lit.Value {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_.+-/:", c):
		default:
			return false
		}
	}
	return !bashBuiltins[lit.Value] || pureBuiltins[lit.Value]
}

// pureBuiltins are the builtins stateless allows: they only print, or
// only return a status.
var pureBuiltins = map[string]bool{":": true, "true": true, "false": true, "echo": true}

// bashBuiltins is `compgen -b` of bash 5.2, with the builtins later bash
// versions added.
var bashBuiltins = map[string]bool{
	".": true, ":": true, "[": true, "alias": true, "bg": true, "bind": true, "break": true,
	"builtin": true, "caller": true, "cd": true, "command": true, "compgen": true, "complete": true,
	"compopt": true, "continue": true, "declare": true, "dirs": true, "disown": true, "echo": true,
	"enable": true, "eval": true, "exec": true, "exit": true, "export": true, "false": true, "fc": true,
	"fg": true, "getopts": true, "hash": true, "help": true, "history": true, "jobs": true, "kill": true,
	"let": true, "local": true, "logout": true, "mapfile": true, "popd": true, "printf": true,
	"pushd": true, "pwd": true, "read": true, "readarray": true, "readonly": true, "return": true,
	"set": true, "shift": true, "shopt": true, "source": true, "suspend": true, "test": true,
	"times": true, "trap": true, "true": true, "type": true, "typeset": true, "ulimit": true,
	"umask": true, "unalias": true, "unset": true, "wait": true,
}
