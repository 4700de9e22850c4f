package policy

import "mvdan.cc/sh/v3/syntax"

// walkNodes calls f for n and, when f returns true, for each of n's
// children in source order, depth first, then f(nil): the protocol of
// syntax.Walk, which it replaces on the classifier's hot path. syntax.Walk
// defers inside a loop for comments, which makes every one of its calls
// pay for a deferred call; the classifier has no use for comments, so this
// walk skips them and needs no defer.
//
// It knows every node type of mvdan.cc/sh/v3 v3.14. A node type it does
// not know (a later version's) is handed to syntax.Walk, so nothing is ever
// skipped; TestWalkNodesMatchesSyntaxWalk and FuzzClassify hold the two
// walks to the same nodes in the same order.
func walkNodes(n syntax.Node, f func(syntax.Node) bool) {
	if !f(n) {
		return
	}
	switch n := n.(type) {
	case *syntax.File:
		stmts(n.Stmts, f)
	case *syntax.Stmt:
		if n.Cmd != nil {
			walkNodes(n.Cmd, f)
		}
		for _, r := range n.Redirs {
			walkNodes(r, f)
		}
	case *syntax.Assign:
		if n.Name != nil {
			walkNodes(n.Name, f)
		}
		if n.Value != nil {
			walkNodes(n.Value, f)
		}
		if n.Index != nil {
			walkNodes(n.Index, f)
		}
		if n.Array != nil {
			walkNodes(n.Array, f)
		}
	case *syntax.Redirect:
		if n.N != nil {
			walkNodes(n.N, f)
		}
		walkNodes(n.Word, f)
		if n.Hdoc != nil {
			walkNodes(n.Hdoc, f)
		}
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			walkNodes(a, f)
		}
		words(n.Args, f)
	case *syntax.Subshell:
		stmts(n.Stmts, f)
	case *syntax.Block:
		stmts(n.Stmts, f)
	case *syntax.IfClause:
		stmts(n.Cond, f)
		stmts(n.Then, f)
		if n.Else != nil {
			walkNodes(n.Else, f)
		}
	case *syntax.WhileClause:
		stmts(n.Cond, f)
		stmts(n.Do, f)
	case *syntax.ForClause:
		walkNodes(n.Loop, f)
		stmts(n.Do, f)
	case *syntax.WordIter:
		walkNodes(n.Name, f)
		words(n.Items, f)
	case *syntax.CStyleLoop:
		arithm(n.Init, f)
		arithm(n.Cond, f)
		arithm(n.Post, f)
	case *syntax.BinaryCmd:
		walkNodes(n.X, f)
		walkNodes(n.Y, f)
	case *syntax.FuncDecl:
		if n.Name != nil {
			walkNodes(n.Name, f)
		}
		for _, name := range n.Names {
			walkNodes(name, f)
		}
		walkNodes(n.Body, f)
	case *syntax.Word:
		for _, p := range n.Parts {
			walkNodes(p, f)
		}
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.DblQuoted:
		for _, p := range n.Parts {
			walkNodes(p, f)
		}
	case *syntax.CmdSubst:
		stmts(n.Stmts, f)
	case *syntax.ParamExp:
		paramExp(n, f)
	case *syntax.ArithmExp:
		walkNodes(n.X, f)
	case *syntax.ArithmCmd:
		walkNodes(n.X, f)
	case *syntax.BinaryArithm:
		walkNodes(n.X, f)
		walkNodes(n.Y, f)
	case *syntax.BinaryTest:
		walkNodes(n.X, f)
		walkNodes(n.Y, f)
	case *syntax.UnaryArithm:
		walkNodes(n.X, f)
	case *syntax.UnaryTest:
		walkNodes(n.X, f)
	case *syntax.ParenArithm:
		walkNodes(n.X, f)
	case *syntax.FlagsArithm:
		walkNodes(n.Flags, f)
		arithm(n.X, f)
	case *syntax.ParenTest:
		walkNodes(n.X, f)
	case *syntax.CaseClause:
		walkNodes(n.Word, f)
		for _, item := range n.Items {
			walkNodes(item, f)
		}
	case *syntax.CaseItem:
		words(n.Patterns, f)
		stmts(n.Stmts, f)
	case *syntax.TestClause:
		walkNodes(n.X, f)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			walkNodes(a, f)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			walkNodes(e, f)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			walkNodes(n.Index, f)
		}
		if n.Value != nil {
			walkNodes(n.Value, f)
		}
	case *syntax.ExtGlob:
		walkNodes(n.Pattern, f)
	case *syntax.ProcSubst:
		stmts(n.Stmts, f)
	case *syntax.TimeClause:
		if n.Stmt != nil {
			walkNodes(n.Stmt, f)
		}
	case *syntax.CoprocClause:
		if n.Name != nil {
			walkNodes(n.Name, f)
		}
		walkNodes(n.Stmt, f)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			walkNodes(x, f)
		}
	case *syntax.TestDecl:
		walkNodes(n.Description, f)
		walkNodes(n.Body, f)
	default:
		// Unknown to this walk: let the parser's own walk find every node
		// below, minus n itself, which f has seen.
		walkChildren(n, f)
		return
	}
	f(nil)
}

func stmts(list []*syntax.Stmt, f func(syntax.Node) bool) {
	for _, st := range list {
		walkNodes(st, f)
	}
}

func words(list []*syntax.Word, f func(syntax.Node) bool) {
	for _, w := range list {
		walkNodes(w, f)
	}
}

func arithm(x syntax.ArithmExpr, f func(syntax.Node) bool) {
	if x != nil {
		walkNodes(x, f)
	}
}

func paramExp(n *syntax.ParamExp, f func(syntax.Node) bool) {
	if n.Flags != nil {
		walkNodes(n.Flags, f)
	}
	if n.Param != nil {
		walkNodes(n.Param, f)
	}
	if n.NestedParam != nil {
		walkNodes(n.NestedParam, f)
	}
	arithm(n.Index, f)
	if n.Slice != nil {
		arithm(n.Slice.Offset, f)
		arithm(n.Slice.Length, f)
	}
	if n.Repl != nil {
		if n.Repl.Orig != nil {
			walkNodes(n.Repl.Orig, f)
		}
		if n.Repl.With != nil {
			walkNodes(n.Repl.With, f)
		}
	}
	if n.Exp != nil && n.Exp.Word != nil {
		walkNodes(n.Exp.Word, f)
	}
}

// walkChildren walks what syntax.Walk finds below n, with f's protocol,
// without calling f for n a second time.
func walkChildren(n syntax.Node, f func(syntax.Node) bool) {
	top := true
	syntax.Walk(n, func(m syntax.Node) bool {
		if top {
			top = false
			return true
		}
		if _, ok := m.(*syntax.Comment); ok {
			return false
		}
		return f(m)
	})
}
