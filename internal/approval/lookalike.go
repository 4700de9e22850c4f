package approval

import (
	"unicode"
	"unicode/utf8"
)

// Lookalikes: characters that pass for ASCII on a terminal. A person reading
// a prompt must see "сat" (Cyrillic с) for what it is, so Escape spells
// such characters as <U+XXXX> when they could make a word pass for plain
// ASCII. Fullwidth forms, mathematical letters and lookalike dashes and
// slashes are always spelled out: they are only ever used to imitate ASCII.
// Cyrillic, Greek and Armenian letters that look like Latin ones are
// spelled out only in a word whose every letter is ASCII or such a
// lookalike, so Russian or Greek text stays readable.

// alwaysLookalike reports whether r imitates ASCII wherever it appears.
func alwaysLookalike(r rune) bool {
	switch {
	case r >= 0xff01 && r <= 0xff5e: // fullwidth ASCII
		return true
	case r >= 0x1d400 && r <= 0x1d7ff: // mathematical alphanumerics
		return true
	case r >= 0x2010 && r <= 0x2015, r == 0x2212, r == 0x2043, r == 0xfe58, r == 0xfe63, r == 0x02d7: // dashes, minus
		return true
	case r == 0x2044, r == 0x2215, r == 0x29f8: // slashes
		return true
	case r == 0x01c0, r == 0x2223, r == 0x2758: // pipes
		return true
	}
	return false
}

// latinLookalikes are letters of other scripts drawn like Latin letters.
var latinLookalikes = map[rune]bool{
	// Cyrillic
	0x0430: true, 0x0435: true, 0x043e: true, 0x0440: true, 0x0441: true, 0x0443: true, 0x0445: true,
	0x0455: true, 0x0456: true, 0x0458: true, 0x04bb: true, 0x0501: true, 0x051b: true, 0x051d: true,
	0x04af: true, 0x0410: true, 0x0412: true, 0x0415: true, 0x041a: true, 0x041c: true, 0x041d: true,
	0x041e: true, 0x0420: true, 0x0421: true, 0x0422: true, 0x0425: true, 0x0405: true, 0x0406: true,
	0x0408: true, 0x0423: true,
	// Greek
	0x03b1: true, 0x03bf: true, 0x03bd: true, 0x03c1: true, 0x03c5: true, 0x03b9: true, 0x03ba: true,
	0x0391: true, 0x0392: true, 0x0395: true, 0x0396: true, 0x0397: true, 0x0399: true, 0x039a: true,
	0x039c: true, 0x039d: true, 0x039f: true, 0x03a1: true, 0x03a4: true, 0x03a5: true, 0x03a7: true,
	// Armenian and Latin extensions
	0x0585: true, 0x0578: true, 0x057d: true, 0x0131: true, 0x0251: true, 0x0261: true,
}

// passesForASCII reports whether every letter of word is ASCII or a Latin
// lookalike, with at least one lookalike: a word a person could read as
// plain ASCII.
func passesForASCII(word string) bool {
	found := false
	for _, r := range word {
		switch {
		case latinLookalikes[r]:
			found = true
		case r < utf8.RuneSelf:
		case hidden(r), alwaysLookalike(r):
			// Spelled out as <U+XXXX>, so they read as ASCII in the
			// result; judging them as letters here would let a second
			// Escape see a different word than the first.
		case unicode.IsLetter(r):
			return false
		}
	}
	return found
}

// hasLookalike reports whether s holds any character Escape might spell
// out as a lookalike.
func hasLookalike(r rune) bool { return alwaysLookalike(r) || latinLookalikes[r] }

// isBlank reports whether the byte c ends a word for passesForASCII.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
