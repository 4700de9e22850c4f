package approval

import "unicode"

// runeWidth returns the number of terminal columns r takes: 0 for combining
// marks, 2 for East Asian wide and fullwidth characters and the common emoji
// blocks, 1 otherwise. It is an approximation of what terminals do, good
// enough to keep the prompt's right border straight for ordinary text; a
// wrong guess only misplaces that border, never hides a character.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case unicode.Is(wide, r):
		return 2
	}
	return 1
}

// wide lists the East Asian Wide and Fullwidth ranges that matter in
// practice (Unicode's EastAsianWidth.txt, simplified). It is never written.
var wide = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x1100, Hi: 0x115f, Stride: 1}, // Hangul Jamo initial consonants
		{Lo: 0x231a, Hi: 0x231b, Stride: 1},
		{Lo: 0x2329, Hi: 0x232a, Stride: 1},
		{Lo: 0x23e9, Hi: 0x23ec, Stride: 1},
		{Lo: 0x2614, Hi: 0x2615, Stride: 1},
		{Lo: 0x2648, Hi: 0x2653, Stride: 1},
		{Lo: 0x2705, Hi: 0x2705, Stride: 1},
		{Lo: 0x270a, Hi: 0x270b, Stride: 1},
		{Lo: 0x274c, Hi: 0x274c, Stride: 1},
		{Lo: 0x2753, Hi: 0x2755, Stride: 1},
		{Lo: 0x2757, Hi: 0x2757, Stride: 1},
		{Lo: 0x2b1b, Hi: 0x2b1c, Stride: 1},
		{Lo: 0x2b50, Hi: 0x2b50, Stride: 1},
		{Lo: 0x2b55, Hi: 0x2b55, Stride: 1},
		{Lo: 0x2e80, Hi: 0x303e, Stride: 1}, // CJK radicals, symbols and punctuation
		{Lo: 0x3041, Hi: 0x33ff, Stride: 1}, // kana, bopomofo, CJK compatibility
		{Lo: 0x3400, Hi: 0x4dbf, Stride: 1}, // CJK extension A
		{Lo: 0x4e00, Hi: 0x9fff, Stride: 1}, // CJK unified ideographs
		{Lo: 0xa000, Hi: 0xa4cf, Stride: 1}, // Yi
		{Lo: 0xa960, Hi: 0xa97f, Stride: 1},
		{Lo: 0xac00, Hi: 0xd7a3, Stride: 1}, // Hangul syllables
		{Lo: 0xf900, Hi: 0xfaff, Stride: 1}, // CJK compatibility ideographs
		{Lo: 0xfe10, Hi: 0xfe19, Stride: 1},
		{Lo: 0xfe30, Hi: 0xfe6f, Stride: 1},
		{Lo: 0xff00, Hi: 0xff60, Stride: 1}, // fullwidth forms
		{Lo: 0xffe0, Hi: 0xffe6, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x16fe0, Hi: 0x16fe4, Stride: 1},
		{Lo: 0x17000, Hi: 0x18aff, Stride: 1}, // Tangut
		{Lo: 0x1b000, Hi: 0x1b2ff, Stride: 1}, // kana supplement
		{Lo: 0x1f004, Hi: 0x1f004, Stride: 1},
		{Lo: 0x1f0cf, Hi: 0x1f0cf, Stride: 1},
		{Lo: 0x1f18e, Hi: 0x1f18e, Stride: 1},
		{Lo: 0x1f191, Hi: 0x1f19a, Stride: 1},
		{Lo: 0x1f200, Hi: 0x1f251, Stride: 1},
		{Lo: 0x1f300, Hi: 0x1f64f, Stride: 1}, // emoji: pictographs, emoticons
		{Lo: 0x1f680, Hi: 0x1f6ff, Stride: 1}, // emoji: transport and map
		{Lo: 0x1f7e0, Hi: 0x1f7eb, Stride: 1},
		{Lo: 0x1f900, Hi: 0x1f9ff, Stride: 1}, // emoji: supplemental
		{Lo: 0x1fa70, Hi: 0x1faff, Stride: 1},
		{Lo: 0x20000, Hi: 0x2fffd, Stride: 1}, // CJK extensions B–F
		{Lo: 0x30000, Hi: 0x3fffd, Stride: 1}, // CJK extension G and later
	},
}
