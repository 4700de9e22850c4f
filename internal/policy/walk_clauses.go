package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// redirs decodes a statement's redirections.
func (w *walker) redirs(rs []*syntax.Redirect) []redir {
	if len(rs) == 0 {
		return nil
	}
	out := w.mem.redirs.take(len(rs))
	for i, r := range rs {
		out[i] = redir{op: r.Op, target: w.dec.decode(r.Word), body: r.Hdoc}
		if r.N != nil {
			out[i].fd = r.N.Value
		}
	}
	return out
}

// assign decodes NAME=value, NAME+=value, NAME[i]=value or NAME=(...).
func (w *walker) assign(a *syntax.Assign) assign {
	out := assign{src: sourceOf(w.dec.src, a), complex: a.Append || a.Index != nil || a.Array != nil}
	if a.Name != nil {
		out.name = a.Name.Value
	}
	switch {
	case a.Array != nil:
		out.value = w.opaque(a.Array)
	case a.Value != nil:
		out.value = w.dec.decode(a.Value)
	default:
		out.value = litWord("")
	}
	return out
}

// decl makes a simple command of a declaration: its options and names as
// words, its assignments both as words and as assignments.
func (w *walker) decl(d *syntax.DeclClause) *call {
	cl := w.newCall(call{kind: kindDecl, args: []word{litWord(d.Variant.Value)}})
	for _, a := range d.Args {
		switch {
		case a.Naked && a.Name == nil && a.Value != nil: // an option such as -x
			cl.args = append(cl.args, w.dec.decode(a.Value))
		case a.Naked && a.Name != nil: // a bare name
			cl.args = append(cl.args, litWord(a.Name.Value))
		default:
			as := w.assign(a)
			cl.assigns = append(cl.assigns, as)
			shown := word{src: as.src, value: as.name + "=" + as.value.value}
			shown.opaque = !as.value.literal() || as.complex
			cl.args = append(cl.args, shown)
		}
	}
	return cl
}

// testWords appends the words of a [[ ]] expression, operators included.
func (w *walker) testWords(out []word, x syntax.TestExpr) []word {
	switch x := x.(type) {
	case *syntax.Word:
		return append(out, w.dec.decode(x))
	case *syntax.UnaryTest:
		return w.testWords(append(out, litWord(x.Op.String())), x.X)
	case *syntax.BinaryTest:
		out = w.testWords(out, x.X)
		return w.testWords(append(out, litWord(x.Op.String())), x.Y)
	case *syntax.ParenTest:
		out = w.testWords(append(out, litWord("(")), x.X)
		return append(out, litWord(")"))
	}
	return out
}

// maxBraceWords caps the words brace expansion may make of one command.
const maxBraceWords = 256

// braces returns the words of args after brace expansion, or nil when no
// word has a brace expansion. The expansion works on copies: the tree
// keeps its words as written.
func (w *walker) braces(args []*syntax.Word) []word {
	if !anyHasBraces(args) {
		return nil
	}
	var out []word
	found := false
	for _, a := range args {
		cp := &syntax.Word{Parts: slices.Clone(a.Parts)}
		if !syntax.SplitBraces(cp) {
			out = append(out, w.dec.decode(a))
			continue
		}
		found = true
		for x, err := range expand.BracesSeq(nil, cp) {
			if err != nil || len(out) >= maxBraceWords {
				break
			}
			out = append(out, w.dec.decode(x))
		}
	}
	if !found {
		return nil
	}
	return out
}

// opaque is a word that stands for source text the classifier does not read.
func (w *walker) opaque(n syntax.Node) word {
	src := sourceOf(w.dec.src, n)
	return word{src: src, value: unknown, opaque: true, subst: strings.Contains(src, "$(") || strings.Contains(src, "`")}
}

func anyHasBraces(args []*syntax.Word) bool {
	for _, a := range args {
		if mayHaveBraces(a) {
			return true
		}
	}
	return false
}

// mayHaveBraces reports whether w has an unquoted { that brace expansion
// could use; most words have none and need no copy.
func mayHaveBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.IndexByte(lit.Value, '{') >= 0 {
			return true
		}
	}
	return false
}
