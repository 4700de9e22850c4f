package policy

import "mvdan.cc/sh/v3/syntax"

// isFlat reports whether n holds no statement, loop or substitution at
// all: a literal, a quoted string, a plain $name, or a word of those.
func isFlat(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		return true
	case *syntax.Word:
		for _, p := range n.Parts {
			switch p := p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.ParamExp:
				if !isSimpleParam(p) {
					return false
				}
			case *syntax.DblQuoted:
				for _, q := range p.Parts {
					switch q := q.(type) {
					case *syntax.Lit:
					case *syntax.ParamExp:
						if !isSimpleParam(q) {
							return false
						}
					default:
						return false
					}
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

// flatCall reports whether every word and assignment of ce is flat.
func flatCall(ce *syntax.CallExpr) bool {
	for _, a := range ce.Assigns {
		if a.Index != nil || a.Array != nil || a.Value != nil && !isFlat(a.Value) {
			return false
		}
	}
	for _, w := range ce.Args {
		if !isFlat(w) {
			return false
		}
	}
	return true
}
