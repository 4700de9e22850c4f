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
	// pattern is value as a path.Match pattern, with quoted and escaped
	// metacharacters escaped; it is set only when glob is.
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
func litWord(s string) word { return word{src: s, value: s} }

// wordDecoder reads words of one source text.
type wordDecoder struct {
	src  string
	home string
}

// decode reads w without expanding anything.
func (d wordDecoder) decode(w *syntax.Word) word {
	out := word{src: wordSource(d.src, w), node: w}
	if w == nil {
		return out
	}
	if lit, ok := plainLit(w); ok {
		// The common case: one unquoted word with nothing to expand.
		out.value = lit
		return out
	}
	// The value is seldom longer than the source; its pattern may be.
	val := wordText{hint: len(out.src)}
	d.read(&out, w, &val, false)
	out.value = val.String()
	if out.glob {
		// Only a glob is ever matched as a pattern: most words need none.
		pat := wordText{hint: len(out.src) + 8}
		d.read(&out, w, &pat, true)
		out.pattern = pat.String()
	}
	return out
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
		if isPatternMeta(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isPatternMeta reports whether path.Match gives c a meaning.
func isPatternMeta(c byte) bool {
	switch c {
	case '*', '?', '[', ']', '\\':
		return true
	}
	return false
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

// wordSource is sourceOf for a word, quicker for the usual one: a single
// literal, whose positions are its own.
func wordSource(src string, w *syntax.Word) string {
	if w != nil && len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok {
			p, e := lit.ValuePos, lit.ValueEnd
			if p.IsValid() && e.IsValid() && !p.IsRecovered() && !e.IsRecovered() {
				if a, b := p.Offset(), e.Offset(); a <= b && b <= uint(len(src)) {
					return src[a:b]
				}
			}
		}
	}
	return sourceOf(src, w)
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
