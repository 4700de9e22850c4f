package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wordText collects the text of a decoded word piece by piece. Most words
// are one piece (a literal, a quoted string, a parameter's unknown), which
// it hands back as it is, a string of the source already; only a text of
// several pieces is built, in one allocation of about hint bytes.
type wordText struct {
	hint   int
	first  string
	b      strings.Builder
	pieces int
}

// add appends s.
func (t *wordText) add(s string) {
	switch {
	case s == "":
		return
	case t.pieces == 0:
		t.first = s
	case t.pieces == 1:
		t.b.Grow(max(t.hint, len(t.first)+len(s)))
		t.b.WriteString(t.first)
		t.b.WriteString(s)
	default:
		t.b.WriteString(s)
	}
	t.pieces++
}

// String returns the text.
func (t *wordText) String() string {
	switch t.pieces {
	case 0:
		return ""
	case 1:
		return t.first
	}
	return t.b.String()
}

// read adds the parts of w to t, as the value or, when pattern is set, as
// the path.Match pattern, and notes in out what bash would expand. Both
// readings note the same.
func (d wordDecoder) read(out *word, w *syntax.Word, t *wordText, pattern bool) {
	quoted := func(s string) {
		if pattern {
			s = escapePattern(s)
		}
		t.add(s)
	}
	var openBrace, openBracket bool
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 {
				out.checkTilde(p.Value, len(w.Parts) > 1)
			}
			out.unquoted(p.Value, t, pattern, &openBrace, &openBracket)
		case *syntax.SglQuoted:
			s := p.Value
			if p.Dollar {
				s = ansiC(s)
			}
			quoted(s)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				switch q := inner.(type) {
				case *syntax.Lit:
					quoted(unescapeDouble(q.Value))
				case *syntax.ParamExp:
					d.param(out, q, true, quoted)
				default:
					out.notLiteral(inner, t)
				}
			}
		case *syntax.ParamExp:
			d.param(out, p, false, quoted)
		default:
			out.notLiteral(part, t)
		}
	}
}

// param adds a parameter expansion to out, its text through text.
func (d wordDecoder) param(out *word, p *syntax.ParamExp, quoted bool, text func(string)) {
	if !isSimpleParam(p) {
		out.opaque = true
		text(unknown)
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
		text(d.home)
		return
	}
	out.params = true
	if !quoted {
		out.bareParam = true
	}
	text(unknown)
}

// notLiteral adds a part only bash can know.
func (w *word) notLiteral(part syntax.Node, t *wordText) {
	w.opaque = true
	switch part.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		w.subst = true
	}
	t.add(unknown)
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

// unquoted decodes an unquoted literal part, as value or as pattern:
// backslash escapes, and notes of what bash would expand in it.
func (w *word) unquoted(s string, t *wordText, pattern bool, openBrace, openBracket *bool) {
	// bash expands ~ after = and : in words that look like assignments.
	if strings.Contains(s, "=~") || strings.Contains(s, ":~") {
		w.opaque = true
	}
	run := 0 // where the text not yet added starts
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			t.add(s[run:i])
			i++
			if pattern && isPatternMeta(s[i]) {
				t.add(s[i-1 : i+1]) // the escape stays, quoting it
			} else {
				t.add(s[i : i+1])
			}
			run = i + 1
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
	}
	t.add(s[run:])
}
