package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walkProgram collects every simple command and redirection of f. It uses
// syntax.Walk so that no kind of node is missed, and keeps the path of
// enclosing nodes for context.
func walkProgram(f *syntax.File, src, home string) *program {
	return walkProgramIn(newWalkMemory(), f, src, home)
}

// walkProgramIn is walkProgram with its calls and words from mem.
func walkProgramIn(mem *walkMemory, f *syntax.File, src, home string) *program {
	w := &walker{
		dec:  wordDecoder{src: src, home: home},
		prog: &program{src: src},
		mem:  mem,
		// Every node of the path down to the current one is on the stack:
		// an && list of n commands is 2n deep.
		stack: mem.stack[:0],
	}
	if f != nil {
		walkNodes(f, w.visit)
	}
	mem.stack = w.stack[:0] // for the next walk, grown as it was
	return w.prog
}

type walker struct {
	dec   wordDecoder
	prog  *program
	stack []frame
	depth int // nesting of the current statement
	loops int // loops around the current statement
	// scopes holds the redirections of the compound statements around the
	// current one, innermost last; a nil entry is a substitution, whose
	// output goes to its own pipe and so stops the inheritance.
	scopes [][]redir
	// mem hands out calls and words in chunks: one allocation for many
	// small ones (chunks are never grown, so what was handed out stays).
	mem *walkMemory
}

func (w *walker) newCall(c call) *call { return w.mem.newCall(c) }

func (w *walker) newWords(n int) []word { return w.mem.words.take(n) }

// frame is one node on the walker's path, with what entering it changed.
type frame struct {
	node   syntax.Node
	nested bool // it is a statement that counts as a level of nesting
	scoped bool // it pushed an entry on scopes
	loop   bool
}

// visit is the walkNodes callback; n is nil when a node's children are done.
func (w *walker) visit(n syntax.Node) bool {
	if n == nil {
		top := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if top.nested {
			w.depth--
		}
		if top.scoped {
			w.scopes = w.scopes[:len(w.scopes)-1]
		}
		if top.loop {
			w.loops--
		}
		return true
	}
	fr := frame{node: n}
	switch n := n.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		// Nothing below them or below a flat word for the walker: no
		// frame, and no f(nil) for it.
		return false
	case *syntax.Word:
		if isFlat(n) {
			return false
		}
	case *syntax.CallExpr:
		// stmt has read its words; only a statement inside one matters.
		if flatCall(n) {
			return false
		}
	case *syntax.Redirect:
		if (n.Word == nil || isFlat(n.Word)) && (n.Hdoc == nil || isFlat(n.Hdoc)) {
			return false
		}
	case *syntax.Stmt:
		// The stages of a pipeline and the parts of an && list are
		// statements of their own in the tree, but nest nothing: a long
		// chain must not count as deep.
		if len(w.stack) == 0 || !isBinary(w.stack[len(w.stack)-1].node) {
			fr.nested = true
			w.depth++
			w.prog.depth = max(w.prog.depth, w.depth)
		}
		if redirs := w.stmt(n); redirs != nil {
			w.scopes = append(w.scopes, redirs)
			fr.scoped = true
		}
	case *syntax.CmdSubst, *syntax.ProcSubst:
		w.scopes = append(w.scopes, nil)
		fr.scoped = true
	case *syntax.WhileClause:
		w.loops++
		fr.loop = true
	case *syntax.ForClause:
		w.loops++
		fr.loop = true
		if it, ok := n.Loop.(*syntax.WordIter); ok && it.Name != nil && strings.ToLower(it.Name.Value) != it.Name.Value {
			w.prog.notes = append(w.prog.notes, unsafe{id: "assignment",
				detail: "the loop sets " + it.Name.Value + ", a variable that can change how commands run"})
		}
	case *syntax.BinaryCmd:
		if isPipe(n.Op) && !w.inPipeline() {
			w.prog.pipelines = append(w.prog.pipelines, pipelineStages(n))
		}
	case *syntax.FuncDecl:
		w.prog.notes = append(w.prog.notes, unsafe{id: "function", detail: "it defines a shell function"})
	case *syntax.CoprocClause:
		w.prog.notes = append(w.prog.notes, unsafe{id: "coprocess", detail: "it starts a coprocess"})
	}
	w.stack = append(w.stack, fr)
	return true
}

func isBinary(n syntax.Node) bool {
	_, ok := n.(*syntax.BinaryCmd)
	return ok
}

// stmt records a statement: a simple command of some kind, or the
// redirections of a compound one, which it returns (nil when it has none).
func (w *walker) stmt(st *syntax.Stmt) []redir {
	redirs := w.redirs(st.Redirs)
	var cl *call
	switch cmd := st.Cmd.(type) {
	case nil:
		if len(redirs) == 0 {
			return nil
		}
		cl = w.newCall(call{kind: kindRedirOnly})
	case *syntax.CallExpr:
		cl = w.newCall(call{kind: kindCall, expr: cmd})
		if len(cmd.Assigns) > 0 {
			cl.assigns = w.mem.assigns.take(len(cmd.Assigns))
			for i, a := range cmd.Assigns {
				cl.assigns[i] = w.assign(a)
			}
		}
		cl.args = w.newWords(len(cmd.Args))
		for i, a := range cmd.Args {
			cl.args[i] = w.dec.decode(a)
		}
		cl.braced = w.braces(cmd.Args)
	case *syntax.DeclClause:
		cl = w.decl(cmd)
	case *syntax.LetClause:
		cl = w.newCall(call{kind: kindLet, args: []word{litWord("let")}})
		for _, x := range cmd.Exprs {
			cl.args = append(cl.args, w.opaque(x))
		}
	case *syntax.TestClause:
		cl = w.newCall(call{kind: kindTest, args: []word{litWord("[[")}})
		cl.args = append(w.testWords(cl.args, cmd.X), litWord("]]"))
	case *syntax.ArithmCmd:
		cl = w.newCall(call{kind: kindArith, args: []word{litWord("(("), w.opaque(cmd.X), litWord("))")}})
	default:
		// A group, subshell, loop, if, case, pipeline or list: its
		// redirections apply to every command inside.
		w.prog.compound = append(w.prog.compound, redirs...)
		if len(redirs) == 0 {
			return nil
		}
		return redirs
	}
	cl.redirs = redirs
	cl.inherited = w.inherited()
	cl.inLoop = w.loops > 0
	w.prog.calls = append(w.prog.calls, cl)
	return nil
}

// inherited returns the redirections of the compound statements enclosing
// the current one, up to the nearest substitution.
func (w *walker) inherited() []redir {
	var out []redir
	for i := len(w.scopes) - 1; i >= 0 && w.scopes[i] != nil; i-- {
		out = append(out, w.scopes[i]...)
	}
	return out
}

// inPipeline reports whether the BinaryCmd on top of the stack is a stage
// of a larger pipeline, which registers all the stages itself.
func (w *walker) inPipeline() bool {
	if len(w.stack) < 2 {
		return false
	}
	parent, ok := w.stack[len(w.stack)-2].node.(*syntax.BinaryCmd)
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
