package approval

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain ASCII", `ls -la /tmp | grep "a\|b" > out.txt`, `ls -la /tmp | grep "a\|b" > out.txt`},
		{"ordinary non-ASCII letters", "echo héllo 日本語 Ελληνικά ñ 😀", "echo héllo 日本語 Ελληνικά ñ 😀"},
		{"combining accent", "cafe\u0301", "cafe\u0301"},
		{"replacement character itself", "\ufffd", "\ufffd"},
		{"empty", "", ""},
		{"clear screen", "echo hi\x1b[2J", `echo hi\x1b[2J`},
		{"cursor up hides a line", "rm -rf ~\x1b[1A\x1b[2Kls", `rm -rf ~\x1b[1A\x1b[2Kls`},
		{"title-setting OSC", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"NUL", "a\x00b", `a\x00b`},
		{"DEL and backspace", "rm\x7f\x08x", `rm\x7f\x08x`},
		{"CRLF", "a\r\nb", `a\r\nb`},
		{"tab", "a\tb", `a\tb`},
		{"C1 CSI", "\u009b2J", `\xc2\x9b2J`},
		{"C1 NEL", "a\u0085b", `a\xc2\x85b`},
		{"invalid bytes", "a\xff\xfeb", `a\xff\xfeb`},
		{"truncated sequence", "\xe6\x97", `\xe6\x97`},
		{"encoded surrogate", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"right-to-left override", "ls \u202etxt.exe", `ls <U+202E>txt.exe`},
		{"bidi embeddings and marks", "\u202a\u202b\u202c\u202d\u200e\u200f\u061c", `<U+202A><U+202B><U+202C><U+202D><U+200E><U+200F><U+061C>`},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `<U+2066>a<U+2067>b<U+2068>c<U+2069>`},
		{"zero-width space, joiners, word joiner", "r\u200bm\u200c\u200d\u2060", `r<U+200B>m<U+200C><U+200D><U+2060>`},
		{"byte order mark and soft hyphen", "\ufeffrm\u00ad", `<U+FEFF>rm<U+00AD>`},
		{"tag characters", "ok\U000e0001\U000e0072\U000e006d\U000e007f", `ok<U+E0001><U+E0072><U+E006D><U+E007F>`},
		{"unassigned tag", "\U000e0000", `<U+E0000>`},
		{"variation selectors", "a\ufe0f\U000e0100", `a<U+FE0F><U+E0100>`},
		{"no-break and other spaces", "a\u00a0b\u2003c\u3000d", `a<U+00A0>b<U+2003>c<U+3000>d`},
		{"cyrillic c passing for cat", "\u0441at f.txt", `<U+0441>at f.txt`},
		{"all-lookalike word", "\u0441\u043e\u0440y", `<U+0441><U+043E><U+0440>y`},
		{"russian word stays", "echo \u043f\u0440\u0438\u0432\u0435\u0442", "echo \u043f\u0440\u0438\u0432\u0435\u0442"},
		{"greek omicron in echo", "ech\u03bf hi", `ech<U+03BF> hi`},
		{"fullwidth letters", "\uff53\uff55\uff44\uff4f id", `<U+FF53><U+FF55><U+FF44><U+FF4F> id`},
		{"minus sign option", "ls \u2212la", `ls <U+2212>la`},
		{"hyphen option", "ls \u2010la", `ls <U+2010>la`},
		{"division slash path", "cat \u2215etc\u2215passwd", `cat <U+2215>etc<U+2215>passwd`},
		{"mathematical letters", "\U0001d42c\U0001d42e\U0001d41d\U0001d428", `<U+1D42C><U+1D42E><U+1D41D><U+1D428>`},
		{"line and paragraph separators", "a\u2028b\u2029", `a<U+2028>b<U+2029>`},
		{"blank-looking fillers", "\u3164\u115f\u2800", `<U+3164><U+115F><U+2800>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzEscape checks, for any input s, that Escape(s):
//   - is valid UTF-8;
//   - contains no rune a terminal would act on or hide: no C0 control
//     (U+0000–U+001F), no DEL (U+007F), no C1 control (U+0080–U+009F), no
//     format character (category Cf), no line or paragraph separator, no
//     space other than U+0020, and nothing from the tag block;
//   - equals s when s is valid UTF-8 made only of runes allowed above
//     (and that are not otherwise hidden), and holds no character that can
//     pass for ASCII (those are spelled out on purpose; their rules have
//     table tests of their own);
//   - is a fixed point: escaping it again changes nothing.
func FuzzEscape(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not valid UTF-8", s, got)
		}
		for i, r := range got {
			if unsafeToShow(r) {
				t.Fatalf("Escape(%q) = %q: %U at byte %d", s, got, r, i)
			}
		}
		plain := !hasAny(s, func(r rune) bool {
			return unsafeToShow(r) || hidden(r) || hasLookalike(r)
		})
		if utf8.ValidString(s) && plain && got != s {
			t.Fatalf("Escape(%q) = %q: changed plain text", s, got)
		}
		if again := Escape(got); again != got {
			t.Fatalf("Escape(%q) = %q, but escaping that again gives %q", s, got, again)
		}
	})
}

// unsafeToShow is the fuzz target's own statement of what must never reach
// a terminal, written apart from Escape's rules.
func unsafeToShow(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) ||
		(unicode.Is(unicode.Zs, r) && r != ' ') ||
		(r >= 0xe0000 && r <= 0xe007f)
}

func hasAny(s string, pred func(rune) bool) bool {
	for _, r := range s {
		if pred(r) {
			return true
		}
	}
	return false
}
