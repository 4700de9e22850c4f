package policy

import (
	"unicode"
	"unicode/utf8"
)

// isPlainASCII reports whether s holds only printable ASCII: a command
// name that does not is a fullwidth form or a homoglyph of one that is
// (or hides a bidi control), and is never taken for the name it looks
// like.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// suspiciousWord returns why an argument of a safe command hides what it
// is: an invisible, bidi or other format character anywhere (the prompt
// and a person's eye would read a different word), or an option spelled
// with something other than ASCII (a fullwidth or lookalike dash that the
// program does not take for an option, or an option name with homoglyphs).
func suspiciousWord(w *word) *unsafe {
	v := w.value
	if isPlainASCII(v) {
		return nil
	}
	for _, r := range v {
		if isInvisible(r) && r != 0 { // NUL stands for a value only bash knows
			return notSafe("unicode", "%s holds the invisible or bidi character %U", w.src, r)
		}
	}
	first, _ := utf8.DecodeRuneInString(v)
	switch {
	case isDashLike(first):
		return notSafe("unicode", "%s starts with %U, which looks like a - but is not one", w.src, first)
	case first == '-' && len(v) > 1:
		for _, r := range v {
			if r > unicode.MaxASCII && r != utf8.RuneError {
				return notSafe("unicode", "the option %s holds %U, which is not ASCII", w.src, r)
			}
		}
	}
	return nil
}

// isInvisible reports whether r draws as nothing or as a plain space, or
// reorders or joins the characters around it.
func isInvisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r < 0xa0:
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Zs, unicode.Variation_Selector) ||
		r >= 0xe0000 && r <= 0xe007f || r == 0x034f || r == 0x115f || r == 0x1160 ||
		r == 0x3164 || r == 0xffa0 || r == 0x2800
}

// isDashLike reports whether r is a hyphen or minus other than ASCII '-'.
func isDashLike(r rune) bool {
	switch r {
	case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0x2043, 0xfe58, 0xfe63, 0xff0d, 0x00ad, 0x02d7, 0x2796:
		return true
	}
	return false
}
