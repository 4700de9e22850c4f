//go:build linux

package host

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testNonce = "00112233445566778899aabbccddeeff"

// rec builds a record the way the wrapper's trap writes it.
func rec(fields ...string) []byte {
	return []byte(strings.Join(fields, "\x00"))
}

func TestParseRecord(t *testing.T) {
	n := testNonce
	decl := "declare -x A=\"1\"\ndeclare -x B=$'x\\ny'\n"
	tests := []struct {
		name    string
		in      []byte
		want    record
		wantErr bool
	}{
		{"complete", rec(n, "3", "/tmp/w\n", decl, n),
			record{status: 3, cwd: "/tmp/w", exports: map[string]string{"A": "1", "B": "x\ny"}}, false},
		{"cwd ending in a newline", rec(n, "0", "/tmp/w\n\n", "", n),
			record{cwd: "/tmp/w\n", exports: map[string]string{}}, false},
		{"pwd failed", rec(n, "0", "", decl, n),
			record{exports: map[string]string{"A": "1", "B": "x\ny"}}, false},
		{"relative cwd ignored", rec(n, "0", "tmp\n", "", n),
			record{exports: map[string]string{}}, false},
		{"unparsable exports keep cwd", rec(n, "1", "/w\n", "declare -x A=$(id)\n", n),
			record{status: 1, cwd: "/w"}, false},
		{"empty", nil, record{}, true},
		{"other nonce", rec("ffeeddccbbaa99887766554433221100", "0", "/w\n", decl, n), record{}, true},
		{"truncated before end marker", rec(n, "0", "/w\n", decl), record{}, true},
		{"end marker missing", rec(n, "0", "/w\n", decl, ""), record{}, true},
		{"extra field", rec(n, "0", "/w\n", decl, "x", n), record{}, true},
		{"status not a number", rec(n, "x", "/w\n", decl, n), record{}, true},
		{"status out of range", rec(n, "256", "/w\n", decl, n), record{}, true},
		// The plain wrapper's record: the status only, no cwd, no exports.
		{"short", rec(n, "4", n), record{status: 4}, false},
		{"short, other nonce", rec(n, "4", "ffeeddccbbaa99887766554433221100"), record{}, true},
		{"short, truncated", rec(n, "4"), record{}, true},
		{"four fields", rec(n, "4", "/w\n", n), record{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRecord(tt.in, n, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseRecord error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(record{})); diff != "" {
				t.Errorf("parseRecord mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseExports(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr string // substring of the error; "" for none
	}{
		{"empty", "", map[string]string{}, ""},
		{"double quoted with escapes", `declare -x A="q\"\\\$\` + "`" + `é"` + "\n", map[string]string{"A": "q\"\\$`é"}, ""},
		{"ANSI-C quoted", `declare -x A=$'x\ty\001z\nw\377'` + "\n", map[string]string{"A": "x\ty\x01z\nw\xff"}, ""},
		{"newline inside double quotes", "declare -x A=\"a\nb\"\n", map[string]string{"A": "a\nb"}, ""},
		{"empty value", `declare -x A=""` + "\n", map[string]string{"A": ""}, ""},
		{"other flags", "declare -ix N=\"5\"\ndeclare -rx R=\"r\"\ndeclare -x -- D=\"d\"\n", map[string]string{"N": "5", "R": "r", "D": "d"}, ""},
		{"no value skipped", "declare -x OLDPWD\n", map[string]string{}, ""},
		{"array skipped", `declare -ax ARR=([0]="1" [1]="2")` + "\n", map[string]string{}, ""},
		{"assoc skipped", `declare -Ax M=([k]="v" )` + "\n", map[string]string{}, ""},
		{"nameref skipped", `declare -nx REF="A"` + "\n", map[string]string{}, ""},
		{"command substitution refused", `declare -x A="$(id)"` + "\n", nil, "not a quoted literal"},
		{"parameter expansion refused", `declare -x A="$HOME"` + "\n", nil, "not a quoted literal"},
		{"bare word refused", "declare -x A=~root\n", nil, "not a quoted literal"},
		{"not exported", `declare -- A="1"` + "\n", nil, "not exported"},
		{"other command", "id\n", nil, "unexpected statement"},
		{"export builtin", `export A="1"` + "\n", nil, "unexpected statement"},
		{"redirect", `declare -x A="1" >/tmp/x` + "\n", nil, "unexpected statement"},
		{"background", `declare -x A="1" &` + "\n", nil, "unexpected statement"},
		{"flag that is no flag", `declare -x$(id) A="1"` + "\n", nil, "unexpected word"},
		{"syntax error", `declare -x A="1` + "\n", nil, "parse declare -px"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseExports(tt.in)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("parseExports error = %v, want containing %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseExports mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseRecord checks that no input panics the parser and that whatever
// it accepts is well formed.
func FuzzParseRecord(f *testing.F) {
	f.Add(rec(testNonce, "0", "/w\n", "declare -x A=\"1\"\n", testNonce))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseRecord(b, testNonce, nil)
		if err != nil {
			return
		}
		if got.status < 0 || got.status > 255 {
			t.Errorf("status %d out of range", got.status)
		}
		if got.cwd != "" && !strings.HasPrefix(got.cwd, "/") {
			t.Errorf("cwd %q is not absolute", got.cwd)
		}
		for name := range got.exports {
			if name == "" || strings.ContainsAny(name, "=\x00") {
				t.Errorf("bad variable name %q", name)
			}
		}
	})
}

// FuzzParseExports feeds arbitrary shell text to the `declare -px` parser:
// it must never panic, and every name it returns must be an identifier.
func FuzzParseExports(f *testing.F) {
	f.Add("declare -x A=\"1\"\ndeclare -x B=$'x\\ny'\n")
	f.Fuzz(func(t *testing.T, text string) {
		vars, err := parseExports(text)
		if err != nil {
			return
		}
		for name := range vars {
			if !isIdent(name) {
				t.Errorf("name %q is not an identifier", name)
			}
		}
	})
}

func isIdent(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// TestExportsMemo: the memo answers a repeated text exactly as a fresh
// parse, hands out maps the caller may change without touching what it
// remembers, and parses a new text anew.
func TestExportsMemo(t *testing.T) {
	var m exportsMemo
	a := "declare -x A=\"1\"\ndeclare -x B=\"two\"\n"
	b := "declare -x A=\"1\"\n"
	for i, tt := range []struct {
		text string
		want map[string]string
	}{
		{a, map[string]string{"A": "1", "B": "two"}},
		{a, map[string]string{"A": "1", "B": "two"}},
		{b, map[string]string{"A": "1"}},
		{a, map[string]string{"A": "1", "B": "two"}},
	} {
		got, err := m.parse(tt.text)
		if err != nil {
			t.Fatalf("parse %d: %v", i, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parse %d (-want +got):\n%s", i, diff)
		}
		got["A"] = "changed by the caller"
	}
	if _, err := m.parse("declare -x 'unterminated"); err == nil {
		t.Error("parse of a broken text succeeded")
	}
}
