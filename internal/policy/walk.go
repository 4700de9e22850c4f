package policy

import "mvdan.cc/sh/v3/syntax"

// callKind tells the kinds of simple command apart.
type callKind int

const (
	kindCall      callKind = iota // a command with arguments, or assignments alone
	kindRedirOnly                 // redirections alone: "> file"
	kindDecl                      // declare, export, local, readonly, typeset, nameref
	kindLet                       // let
	kindTest                      // [[ ... ]]
	kindArith                     // (( ... ))
)

// call is one simple command found in the program.
type call struct {
	kind    callKind
	args    []word
	assigns []assign // leading NAME=value words, or a declaration's assignments
	redirs  []redir  // the statement's own redirections
	// inherited are the redirections of enclosing groups, subshells and
	// loops. They are shown with the command; program.compound holds them
	// for checking.
	inherited []redir
	inLoop    bool // inside a while, until or for body or condition
	// braced is args after brace expansion, which turns one word into
	// several ({sudo,id} is two), when any word has one; else nil.
	braced []word
	expr   *syntax.CallExpr
}

// argv returns the words the command runs with, braces expanded.
func (cl *call) argv() []word {
	if cl.braced != nil {
		return cl.braced
	}
	return cl.args
}

type assign struct {
	name    string
	value   word
	src     string
	complex bool // an array, an index, or +=
}

type redir struct {
	op     syntax.RedirOperator
	fd     string // as written before the operator; "" for its default
	target word
	body   *syntax.Word // a here-document's body
}

func (r redir) display() Redirect {
	return Redirect{Op: r.fd + r.op.String(), Target: r.target.display()}
}

// program is what the walk found in one parsed command string.
type program struct {
	src       string
	calls     []*call
	byExpr    map[*syntax.CallExpr]*call
	pipelines [][]*syntax.Stmt // each pipeline's stages, outermost pipelines only
	compound  []redir          // redirections of compound statements
	notes     []unsafe         // constructs that are never safe: functions, coprocesses
	depth     int              // deepest statement nesting
}

// walkProgram collects every simple command and redirection of f. It uses
// syntax.Walk so that no kind of node is missed, and keeps the path of
// enclosing nodes for context.
func walkProgram(f *syntax.File, src, home string) *program {
	w := &walker{
		dec:     wordDecoder{src: src, home: home},
		prog:    &program{src: src, byExpr: make(map[*syntax.CallExpr]*call)},
		stmtRed: make(map[*syntax.Stmt][]redir),
	}
	if f != nil {
		syntax.Walk(f, w.visit)
	}
	return w.prog
}

type walker struct {
	dec     wordDecoder
	prog    *program
	stack   []syntax.Node
	depth   int
	stmtRed map[*syntax.Stmt][]redir // decoded redirections of compound statements
}

// visit is the syntax.Walk callback; n is nil when a node's children are done.
func (w *walker) visit(n syntax.Node) bool {
	if n == nil {
		if _, ok := w.stack[len(w.stack)-1].(*syntax.Stmt); ok {
			w.depth--
		}
		w.stack = w.stack[:len(w.stack)-1]
		return true
	}
	w.stack = append(w.stack, n)
	switch n := n.(type) {
	case *syntax.Stmt:
		w.depth++
		w.prog.depth = max(w.prog.depth, w.depth)
		w.stmt(n)
	case *syntax.BinaryCmd:
		if isPipe(n.Op) && !w.inPipeline() {
			w.prog.pipelines = append(w.prog.pipelines, pipelineStages(n))
		}
	case *syntax.FuncDecl:
		w.prog.notes = append(w.prog.notes, unsafe{id: "function", detail: "it defines a shell function"})
	case *syntax.CoprocClause:
		w.prog.notes = append(w.prog.notes, unsafe{id: "coprocess", detail: "it starts a coprocess"})
	}
	return true
}

// stmt records a statement: a simple command of some kind, or the
// redirections of a compound one.
func (w *walker) stmt(st *syntax.Stmt) {
	redirs := w.redirs(st.Redirs)
	var cl *call
	switch cmd := st.Cmd.(type) {
	case nil:
		if len(redirs) == 0 {
			return
		}
		cl = &call{kind: kindRedirOnly}
	case *syntax.CallExpr:
		cl = &call{kind: kindCall, expr: cmd}
		for _, a := range cmd.Assigns {
			cl.assigns = append(cl.assigns, w.assign(a))
		}
		for _, a := range cmd.Args {
			cl.args = append(cl.args, w.dec.decode(a))
		}
		cl.braced = w.braces(cmd.Args)
		w.prog.byExpr[cmd] = cl
	case *syntax.DeclClause:
		cl = w.decl(cmd)
	case *syntax.LetClause:
		cl = &call{kind: kindLet, args: []word{litWord("let")}}
		for _, x := range cmd.Exprs {
			cl.args = append(cl.args, w.opaque(x))
		}
	case *syntax.TestClause:
		cl = &call{kind: kindTest, args: []word{litWord("[[")}}
		cl.args = append(w.testWords(cl.args, cmd.X), litWord("]]"))
	case *syntax.ArithmCmd:
		cl = &call{kind: kindArith, args: []word{litWord("(("), w.opaque(cmd.X), litWord("))")}}
	default:
		// A group, subshell, loop, if, case, pipeline or list: its
		// redirections apply to every command inside.
		w.prog.compound = append(w.prog.compound, redirs...)
		w.stmtRed[st] = redirs
		return
	}
	cl.redirs = redirs
	cl.inherited = w.inherited()
	cl.inLoop = w.inLoop()
	w.prog.calls = append(w.prog.calls, cl)
}

// inherited returns the redirections of the statements enclosing the
// current one, up to the nearest substitution: a substitution's output
// goes to its own pipe.
func (w *walker) inherited() []redir {
	var out []redir
	for i := len(w.stack) - 2; i >= 0; i-- {
		switch n := w.stack[i].(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return out
		case *syntax.Stmt:
			out = append(out, w.stmtRed[n]...)
		}
	}
	return out
}

// inLoop reports whether the current statement is inside a loop.
func (w *walker) inLoop() bool {
	for _, n := range w.stack {
		switch n.(type) {
		case *syntax.WhileClause, *syntax.ForClause:
			return true
		}
	}
	return false
}

// inPipeline reports whether the BinaryCmd on top of the stack is a stage
// of a larger pipeline, which registers all the stages itself.
func (w *walker) inPipeline() bool {
	if len(w.stack) < 3 {
		return false
	}
	parent, ok := w.stack[len(w.stack)-3].(*syntax.BinaryCmd)
	return ok && isPipe(parent.Op)
}

func isPipe(op syntax.BinCmdOperator) bool { return op == syntax.Pipe || op == syntax.PipeAll }

// pipelineStages flattens a | b | c into its stages.
func pipelineStages(b *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	var add func(*syntax.Stmt)
	add = func(st *syntax.Stmt) {
		if st == nil {
			return
		}
		if bc, ok := st.Cmd.(*syntax.BinaryCmd); ok && isPipe(bc.Op) {
			add(bc.X)
			add(bc.Y)
			return
		}
		out = append(out, st)
	}
	add(b.X)
	add(b.Y)
	return out
}
