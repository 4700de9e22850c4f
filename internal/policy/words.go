package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unknown stands in, inside a decoded word, for a part whose value only bash
// knows: a parameter, a substitution. NUL never occurs in a command that is
// classified, so it cannot be confused with text.
const unknown = "\x00"

// word is one shell word read without expanding anything.
type word struct {
	src   string // the source text
	value string // quotes removed, escapes applied, unknown for what only bash knows
	// pattern is value as a path.Match pattern, meaningful when glob is set:
	// quoted and escaped metacharacters are escaped.
	pattern string

	glob      bool // unquoted *, ? or [...]: bash matches it against the file system
	tilde     bool // begins with a ~ or ~/ that bash replaces with $HOME
	params    bool // holds simple parameter expansions: $name, ${name}
	bareParam bool // one of those is unquoted, so bash splits and globs it
	opaque    bool // holds anything else that is not literal
	subst     bool // holds a command or process substitution

	node *syntax.Word
}

// literal reports whether bash passes w exactly as w.value (after ~).
func (w *word) literal() bool { return !w.params && !w.opaque && !w.glob }

// known reports whether value holds no part that only bash knows.
func (w *word) known() bool { return !strings.Contains(w.value, unknown) }

// display is what a person is shown: the value of a literal, else the source.
func (w *word) display() string {
	if w.literal() {
		return w.value
	}
	return w.src
}

// litWord makes a literal word out of text the analysis split off another
// literal word, such as the value of --file=x.
func litWord(s string) word { return word{src: s, value: s, pattern: escapePattern(s)} }

// wordDecoder reads words of one source text.
type wordDecoder struct {
	src  string
	home string
}

// decode reads w without expanding anything.
func (d wordDecoder) decode(w *syntax.Word) word {
	out := word{src: sourceOf(d.src, w), node: w}
	if w == nil {
		return out
	}
	if lit, ok := plainLit(w); ok {
		// The common case: one unquoted word with nothing to expand.
		out.value, out.pattern = lit, lit
		return out
	}
	var val, pat strings.Builder
	var openBrace, openBracket bool
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 {
				out.checkTilde(p.Value, len(w.Parts) > 1)
			}
			out.unquoted(p.Value, &val, &pat, &openBrace, &openBracket)
		case *syntax.SglQuoted:
			s := p.Value
			if p.Dollar {
				s = ansiC(s)
			}
			val.WriteString(s)
			pat.WriteString(escapePattern(s))
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				switch q := inner.(type) {
				case *syntax.Lit:
					s := unescapeDouble(q.Value)
					val.WriteString(s)
					pat.WriteString(escapePattern(s))
				case *syntax.ParamExp:
					d.param(&out, q, true, &val, &pat)
				default:
					out.notLiteral(inner, &val, &pat)
				}
			}
		case *syntax.ParamExp:
			d.param(&out, p, false, &val, &pat)
		default:
			out.notLiteral(part, &val, &pat)
		}
	}
	out.value, out.pattern = val.String(), pat.String()
	return out
}

// param adds a parameter expansion to out.
func (d wordDecoder) param(out *word, p *syntax.ParamExp, quoted bool, val, pat *strings.Builder) {
	if !isSimpleParam(p) {
		out.notLiteral(p, val, pat)
		return
	}
	// $HOME is known to the classifier: the daemon sets it for every
	// command and a session can never change it (session/filter.go). A
	// safe command cannot set it either, and a home without blanks or
	// glob characters reads the same unquoted: so $HOME is a literal.
	if p.Param.Value == "HOME" && d.home != "" {
		if !quoted && strings.ContainsAny(d.home, " \t\n*?[") {
			out.params, out.bareParam = true, true
		}
		val.WriteString(d.home)
		pat.WriteString(escapePattern(d.home))
		return
	}
	out.params = true
	if !quoted {
		out.bareParam = true
	}
	val.WriteString(unknown)
	pat.WriteString(unknown)
}

// notLiteral adds a part only bash can know.
func (w *word) notLiteral(part syntax.Node, val, pat *strings.Builder) {
	w.opaque = true
	switch part.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		w.subst = true
	}
	val.WriteString(unknown)
	pat.WriteString(unknown)
}

// checkTilde looks at the first, unquoted part of a word for tilde expansion.
func (w *word) checkTilde(s string, more bool) {
	if strings.HasPrefix(s, "~") {
		prefix, _, slash := strings.Cut(s, "/")
		if prefix == "~" && (slash || !more) {
			w.tilde = true
		} else {
			// ~user, ~+, ~-, or a prefix continued in quotes: only bash knows.
			w.opaque = true
		}
	}
}

// unquoted decodes an unquoted literal part: backslash escapes, and notes of
// what bash would expand in it.
func (w *word) unquoted(s string, val, pat *strings.Builder, openBrace, openBracket *bool) {
	// bash expands ~ after = and : in words that look like assignments.
	if strings.Contains(s, "=~") || strings.Contains(s, ":~") {
		w.opaque = true
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			i++
			val.WriteByte(s[i])
			pat.WriteString(escapePattern(s[i : i+1]))
			continue
		}
		switch ch {
		case '*', '?':
			w.glob = true
		case '[':
			*openBracket = true
		case ']':
			if *openBracket {
				w.glob = true
			}
		case '{':
			*openBrace = true
		case '}':
			if *openBrace {
				w.opaque = true // brace expansion
			}
		}
		val.WriteByte(ch)
		pat.WriteByte(ch)
	}
}

// unescapeDouble removes the backslashes that quote a character inside
// double quotes; other backslashes stay.
func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapePattern quotes s for path.Match.
func escapePattern(s string) string {
	if !strings.ContainsAny(s, `*?[]\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isSimpleParam reports whether p is $name or ${name}, nothing more.
func isSimpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width &&
		!p.IsSet && p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset &&
		p.RcExpand == syntax.OptUnset && p.NestedParam == nil && p.Index == nil &&
		len(p.Modifiers) == 0 && p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// sourceOf returns the source text of n, or n printed when its positions
// do not index src (nodes the parser made up while recovering).
func sourceOf(src string, n syntax.Node) string {
	if w, ok := n.(*syntax.Word); ok && (w == nil || len(w.Parts) == 0) {
		return ""
	}
	p, e := n.Pos(), n.End()
	if p.IsValid() && e.IsValid() && !p.IsRecovered() && !e.IsRecovered() {
		if a, b := p.Offset(), e.Offset(); a <= b && b <= uint(len(src)) {
			return src[a:b]
		}
	}
	var b strings.Builder
	// A printer error leaves a partial text, which is all a display needs.
	_ = syntax.NewPrinter().Print(&b, n)
	return b.String()
}

// plainLit returns the text of w when it is a single unquoted literal that
// bash passes unchanged: no escapes, globs, braces, tilde or assignment-like
// tilde.
func plainLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if hasAnyByte(p.Value, true) {
			return "", false
		}
		return p.Value, true
	case *syntax.SglQuoted:
		// 'text' is text, unless it has what a pattern would escape.
		if p.Dollar || hasAnyByte(p.Value, false) {
			return "", false
		}
		return p.Value, true
	}
	return "", false
}

// hasAnyByte reports whether s holds a byte a pattern escapes (\ * ? [ ])
// or, when unquoted, one that may expand ({ } ~ = :). A loop beats
// strings.ContainsAny here, which builds its set on every call.
func hasAnyByte(s string, unquoted bool) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[', ']':
			return true
		case '{', '}', '~', '=', ':':
			if unquoted {
				return true
			}
		}
	}
	return false
}
