package approval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s in a form that is safe to print on a terminal and that
// shows every byte the shell would see. Ordinary text, including non-ASCII
// letters, is returned unchanged; everything a terminal would act on, hide
// or reorder is spelled out instead:
//
//   - \n, \t and \r become the two characters \n, \t and \r, so the result is
//     always a single line (the prompt shows a multi-line command line by
//     line before escaping each line);
//   - other C0 controls and DEL become \xNN, which also defuses ANSI escape
//     sequences, since their ESC is shown as \x1b;
//   - C1 controls (U+0080–U+009F) become the \xNN form of their two UTF-8
//     bytes, e.g. \xc2\x9b, so every \xNN in the result stands for exactly
//     one byte of s;
//   - bytes that are not valid UTF-8 become \xNN;
//   - bidirectional controls, zero-width and other invisible format
//     characters (Unicode category Cf, which includes U+200B–U+200F,
//     U+202A–U+202E, U+2060, U+2066–U+2069, U+061C, U+FEFF, U+00AD and the
//     tag characters), line and paragraph separators, spaces other than
//     U+0020, variation selectors and blank-looking fillers become <U+XXXX>;
//   - characters that pass for ASCII become <U+XXXX>: fullwidth forms,
//     mathematical letters and lookalike dashes, slashes and pipes always,
//     and Cyrillic, Greek or Armenian letters drawn like Latin ones in a
//     word that could pass for plain ASCII ("сat", but not "привет"); see
//     lookalike.go.
//
// Backslashes in s are left alone, so a command that literally contains the
// text \x1b is shown the same as one containing the ESC byte; both are
// visible, and doubling every backslash would make ordinary commands
// harder to read.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	visit(s, func(text string, _ int) { b.WriteString(text) })
	return b.String()
}

// needsEscape reports whether Escape would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r < 0x20 || r == 0x7f || isC1(r) || hidden(r) || hasLookalike(r) {
			return true
		}
		i += size
	}
	return false
}

// visit calls emit for each display unit of s in order: a rune shown as
// itself, or the escape that stands for it, with the number of terminal
// columns it takes. Keeping units whole lets the prompt wrap long lines
// without splitting an escape such as <U+202E> across two rows.
func visit(s string, emit func(text string, width int)) {
	passable, wordEnd := false, 0
	for i := 0; i < len(s); {
		if i >= wordEnd && !isBlank(s[i]) {
			wordEnd = i
			for wordEnd < len(s) && !isBlank(s[wordEnd]) {
				wordEnd++
			}
			passable = passesForASCII(s[i:wordEnd])
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case alwaysLookalike(r) || passable && latinLookalikes[r]:
			u := codePoint(r)
			emit(u, len(u))
		case r == utf8.RuneError && size == 1:
			emit(hexByte(s[i]), 4)
		case r == '\n':
			emit(`\n`, 2)
		case r == '\t':
			emit(`\t`, 2)
		case r == '\r':
			emit(`\r`, 2)
		case r < 0x20 || r == 0x7f:
			emit(hexByte(byte(r)), 4)
		case isC1(r):
			emit(hexByte(s[i])+hexByte(s[i+1]), 8)
		case hidden(r):
			u := codePoint(r)
			emit(u, len(u))
		default:
			emit(s[i:i+size], runeWidth(r))
		}
		i += size
	}
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// hidden reports whether r is a printable-looking character that a terminal
// would draw as nothing, as a plain space, or that changes how the
// characters around it are ordered or joined.
func hidden(r rune) bool {
	switch {
	case r < 0xa0:
		return false
	case unicode.Is(unicode.Cf, r), // format: bidi controls, zero-width, soft hyphen, BOM, tags
		unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), // U+2028, U+2029
		unicode.Is(unicode.Zs, r),                          // spaces other than U+0020 (which is below 0xa0)
		unicode.Is(unicode.Variation_Selector, r),          // U+FE00–U+FE0F, U+E0100–U+E01EF
		r >= 0xe0000 && r <= 0xe007f,                       // the whole tag block, assigned or not
		r == 0x034f,                                        // combining grapheme joiner
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, // Hangul fillers, drawn blank
		r == 0x2800: // braille blank
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

func hexByte(c byte) string {
	return string([]byte{'\\', 'x', hexDigits[c>>4], hexDigits[c&0xf]})
}

// codePoint spells r as <U+XXXX>, with at least four upper-case hex digits.
func codePoint(r rune) string {
	const upper = "0123456789ABCDEF"
	var digits []byte
	for v := uint32(r); v > 0 || len(digits) < 4; v >>= 4 {
		digits = append(digits, upper[v&0xf])
	}
	b := append([]byte(nil), "<U+"...)
	for i := len(digits) - 1; i >= 0; i-- {
		b = append(b, digits[i])
	}
	return string(append(b, '>'))
}
