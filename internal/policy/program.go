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
	byExpr    map[*syntax.CallExpr]*call // built by callOf when first needed
	pipelines [][]*syntax.Stmt           // each pipeline's stages, outermost pipelines only
	compound  []redir                    // redirections of compound statements
	notes     []unsafe                   // constructs that are never safe: functions, coprocesses
	depth     int                        // deepest statement nesting
}

// callOf returns the call recorded for ce, or nil. Only the hard-deny
// search of pipelines and substitutions asks, so the index is built on
// its first question; a short program is searched instead.
func (p *program) callOf(ce *syntax.CallExpr) *call {
	if ce == nil {
		return nil
	}
	if p.byExpr == nil && len(p.calls) <= 16 {
		for _, cl := range p.calls {
			if cl.expr == ce {
				return cl
			}
		}
		return nil
	}
	if p.byExpr == nil {
		p.byExpr = make(map[*syntax.CallExpr]*call, len(p.calls))
		for _, cl := range p.calls {
			if cl.expr != nil {
				p.byExpr[cl.expr] = cl
			}
		}
	}
	return p.byExpr[ce]
}
