package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeWord(t *testing.T) {
	type view struct {
		Value                                             string
		Literal, Glob, Tilde, Params, Bare, Opaque, Subst bool
	}
	tests := []struct {
		name, src string
		want      view
	}{
		{"plain", `abc`, view{Value: "abc", Literal: true}},
		{"backslash", `\sudo`, view{Value: "sudo", Literal: true}},
		{"single-quoted-pieces", `'su'do`, view{Value: "sudo", Literal: true}},
		{"double-quoted-escapes", `"a\$b\"c\d"`, view{Value: `a$b"c\d`, Literal: true}},
		{"ansi-c", `$'\x73u\144o\n'`, view{Value: "sudo\n", Literal: true}},
		{"tilde", `~/x`, view{Value: "~/x", Literal: true, Tilde: true}},
		{"tilde-quoted-is-text", `'~/x'`, view{Value: "~/x", Literal: true}},
		{"tilde-user", `~root/x`, view{Value: "~root/x", Opaque: true}},
		{"tilde-after-equals", `--file=~/x`, view{Value: "--file=~/x", Opaque: true}},
		{"glob", `*.go`, view{Value: "*.go", Glob: true}},
		{"glob-class", `a[12]`, view{Value: "a[12]", Glob: true}},
		{"bracket-alone", `[`, view{Value: "[", Literal: true}},
		{"escaped-glob", `\*.go`, view{Value: "*.go", Literal: true}},
		{"quoted-glob", `'*'.go`, view{Value: "*.go", Literal: true}},
		{"brace", `{a,b}`, view{Value: "{a,b}", Opaque: true}},
		{"brace-split-by-quotes", `{a,"b"}`, view{Value: "{a,b}", Opaque: true}},
		{"bare-param", `$x`, view{Value: unknown, Params: true, Bare: true}},
		{"quoted-param", `"$x/y"`, view{Value: unknown + "/y", Params: true}},
		// $HOME is known and fixed for every command: a literal.
		{"home-param", `"$HOME/y"`, view{Value: "/home/u/y", Literal: true}},
		{"home-param-bare", `$HOME/y`, view{Value: "/home/u/y", Literal: true}},
		{"complex-param", `${x:-y}`, view{Value: unknown, Opaque: true}},
		{"cmd-subst", `"$(id)"`, view{Value: unknown, Opaque: true, Subst: true}},
		{"proc-subst", `<(id)`, view{Value: unknown, Opaque: true, Subst: true}},
		{"arith", `$((1+2))`, view{Value: unknown, Opaque: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseBash("x " + tt.src)
			if err != nil {
				t.Fatalf("parse %q: %v", tt.src, err)
			}
			p := walkProgram(f, "x "+tt.src, "/home/u")
			w := p.calls[0].args[1]
			got := view{w.value, w.literal(), w.glob, w.tilde, w.params, w.bareParam, w.opaque, w.subst}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decode(%q) (-want +got):\n%s", tt.src, diff)
			}
			if w.src != tt.src {
				t.Errorf("src = %q, want %q", w.src, tt.src)
			}
		})
	}
}

func TestAnsiC(t *testing.T) {
	cases := []struct{ in, want string }{
		{`plain`, "plain"},
		{`\a\b\e\f\n\r\t\v\\\'\"\?`, "\a\b\x1b\f\n\r\t\v\\'\"?"},
		{`\x41\x4a\xZ`, "AJ\\xZ"},
		{`\101\60`, "A0"},
		{`\u00e9\U0001F600`, "é😀"},
		{`\cA\q`, "\x01\\q"},
		{`ab\x00cd`, "ab"},
		{`trailing\`, "trailing\\"},
	}
	for _, tt := range cases {
		if got := ansiC(tt.in); got != tt.want {
			t.Errorf("ansiC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSetuidMode(t *testing.T) {
	tests := map[string]bool{
		"u+s": true, "g+s": true, "+s": true, "a+s": true, "ug+s": true, "u=rwxs": true, "u+x,g+s": true,
		"4755": true, "2755": true, "6755": true, "04755": true,
		"755": false, "0755": false, "u-s": false, "o+s": false, "u+x": false, "": false, "+t": false, "1777": false,
	}
	for mode, want := range tests {
		if got := setuidMode(mode); got != want {
			t.Errorf("setuidMode(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	tests := []struct {
		cmd, want string
	}{
		{`env -i A=1 -u B nice -n 5 ls -l`, "ls -l"},
		{`timeout --signal KILL 5s stdbuf -oL -e0 grep x`, "grep x"},
		{`xargs -0 -I{} -P 4 rm {}`, "rm {}"},
		{`command -v sudo`, ""},
		{`env -S 'sudo id' x`, "sudo id x"},
		{`nohup -- time -p busybox sh`, "sh"},
		{`plain args`, "plain args"},
	}
	for _, tt := range tests {
		f, err := parseBash(tt.cmd)
		if err != nil {
			t.Fatal(err)
		}
		core, _ := unwrap(walkProgram(f, tt.cmd, "").calls[0].args)
		var got []string
		for _, w := range core {
			got = append(got, w.value)
		}
		if diff := cmp.Diff(tt.want, strings.Join(got, " ")); diff != "" {
			t.Errorf("unwrap(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}
