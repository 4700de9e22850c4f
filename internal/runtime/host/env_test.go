//go:build linux

package host

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunExports(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		var allBytes []byte
		for b := 1; b < 256; b++ {
			allBytes = append(allBytes, byte(b))
		}
		values := map[string]string{
			"SPACE_NEWLINE": "a b\nc",
			"QUOTES":        `it's "quoted"`,
			"BACKSLASHES":   `a\b\\c\n`,
			"DOLLARS":       "$HOME ${x} $(id) `id`",
			"UNICODE":       "héllo wörld ✓ 日本 \u200b",
			"CONTROL":       "tab\there\x01\x1b[0m\x7f",
			"INVALID_UTF8":  "\xff\xfe\xc3",
			"TRAILING_NL":   "x\n\n",
			"EMPTY":         "",
			"GLOBS":         "~ {a,b} * ? [x]",
			"ALL_BYTES":     string(allBytes),
		}
		var cmd strings.Builder
		for name, v := range values {
			q, err := quote(v)
			if err != nil {
				t.Fatal(err)
			}
			cmd.WriteString("export " + name + "=" + q + "\n")
		}
		cmd.WriteString("NOT_EXPORTED=1; export NOVALUE; declare -a ARR=(1 2); export ARR; declare -ix NUM=5; declare -rx RO=r\n")
		for _, lang := range []string{"C.UTF-8", "C"} {
			t.Run(lang, func(t *testing.T) {
				req := request(t, cmd.String())
				req.Env = []string{"PATH=/usr/bin:/bin", "LANG=" + lang, "KEEP=me"}
				got := run(t, r, context.Background(), req)
				want := map[string]string{"PATH": "/usr/bin:/bin", "LANG": lang, "KEEP": "me", "NUM": "5", "RO": "r", "PWD": req.Cwd, "OLDPWD": req.Cwd, "SHLVL": "1"}
				for k, v := range values {
					want[k] = v
				}
				if diff := cmp.Diff(want, got.Exports); diff != "" {
					t.Errorf("exports mismatch (-want +got):\n%s\noutput: %s", diff, got.Output)
				}
			})
		}
	})
}

func TestRunEnvIsExactlyRequested(t *testing.T) {
	t.Setenv("SIDECAR_DAEMON_SECRET", "must not leak")
	forEachPath(t, func(t *testing.T, r *Runtime) {
		req := request(t, "env -0")
		req.Env = []string{"PATH=/usr/bin:/bin", "MULTI=line 1\nline 2", "EMPTY=", "LANG=C.UTF-8"}
		got := run(t, r, context.Background(), req)
		var env []string
		for kv := range strings.SplitSeq(strings.TrimSuffix(string(got.Output), "\x00"), "\x00") {
			name, _, _ := strings.Cut(kv, "=")
			switch name {
			case "PWD", "SHLVL", "_", "OLDPWD": // bash's own
				continue
			}
			env = append(env, kv)
		}
		want := slices.Clone(req.Env)
		slices.Sort(want)
		slices.Sort(env)
		if diff := cmp.Diff(want, env); diff != "" {
			t.Errorf("environment mismatch (-want +got):\n%s", diff)
		}
	})
}
