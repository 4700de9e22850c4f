//go:build linux

package host

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

func TestStateless(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		{"true", true},
		{":", true},
		{"echo hi", true},
		{"ls -la", true},
		{"git status --short", true},
		{"pytest -x 2>&1 | tail -n 20", true},
		{"make test && echo ok || echo failed", true},
		{`python3 -c 'import os; os.chdir("/")'`, true},
		{"cat <<'EOF'\ncd /\nEOF", true},
		{"ls > out.txt", true},
		{"time ls", true},
		{"! false", true},
		{"sleep 0 &", true},
		{"(echo a)", true},
		{"echo $(date) `date`", true},
		{`echo "$HOME" ${#PATH} ${PATH%%:*} ${PATH/:/ }`, true},
		{"/bin/echo x; ./run.sh; no-such-command", true},
		{"if ls; then echo y; else echo n; fi", true},
		{"case $1 in a) echo a;; esac", true},
		{"echo 'cd /; export A=1'", true},

		{"cd /tmp", false},
		{"cd", false},
		{"pushd /", false},
		{"popd", false},
		{"export A=1", false},
		{"A=1", false},
		{"A=1 make", false},
		{"a=(1 2)", false},
		{"declare -x A", false},
		{"local a", false},
		{"readonly a", false},
		{"typeset a", false},
		{"unset PATH", false},
		{"set -a", false},
		{"shopt -s expand_aliases", false},
		{"source x", false},
		{". x", false},
		{"eval ls", false},
		{"exec ls", false},
		{"exec 3>x", false},
		{"read a", false},
		{"mapfile a", false},
		{"readarray a", false},
		{"printf -v a x", false},
		{"getopts a b", false},
		{"let a=1", false},
		{"((a=1))", false},
		{"echo $((a=1))", false},
		{"echo $((1))", false},
		{"echo ${a:=1}", false},
		{"echo ${a=1}", false},
		{"echo ${a[i=1]}", false},
		{"echo ${a[1]}", false},
		{"echo ${!a}", false},
		{"echo ${a:1:2}", false},
		{"for a in 1; do :; done", false},
		{"for ((i=0; i<1; i++)); do :; done", false},
		{"select a in 1; do :; done", false},
		{"f() { :; }", false},
		{"function f { :; }", false},
		{"coproc ls", false},
		{"[[ a -eq 1 ]]", false},
		{"[[ -n x ]]", false},
		{"test -v 'a[i=1]'", false},
		{"[ -f x ]", false},
		{`\cd /`, false},
		{`c''d /`, false},
		{`'cd' /`, false},
		{`"cd" /`, false},
		{"$c /", false},
		{"{cd,/}", false},
		{"c? /", false},
		{"ls {fd}>x", false},
		{"alias a=b", false},
		{"enable -n echo", false},
		{"builtin cd /", false},
		{"command cd /", false},
		{"trap '' EXIT", false},
		{"exit 3", false},
		{"pwd", false},
		{"if true; then cd /; fi", false},
		{"ls | cd /", false},
		{"echo $(cd /)", false},
		{"echo `cd /`", false},
		{"echo <(cd /)", false},
		{"case x in x) cd /;; esac", false},
		{"while cd /; do break; done", false},
		{"unterminated '", false},
		{"", true},
		{strings.Repeat("echo x; ", maxStatelessScan/8) + "echo x", false},
	}
	for _, tt := range tests {
		if got := stateless(tt.command); got != tt.want {
			t.Errorf("stateless(%q) = %v, want %v", tt.command, got, tt.want)
		}
	}
}

// TestStatelessAgreesWithBash runs commands that stateless accepts behind
// the full wrapper anyway, on both paths: the EXIT trap must report the
// directory they started in and the variables every command starts with.
func TestStatelessAgreesWithBash(t *testing.T) {
	commands := []string{
		"true",
		"echo hi; ls -la >/dev/null",
		`echo "$HOME" ${#PATH} ${PATH%%:*} > out.txt; cat out.txt`,
		"(echo a; ls) | wc -l",
		"if ls; then echo y; fi; ! false",
		"sleep 0 & echo $(date) `date`",
		`bash -c 'cd /; export A=1'`,
	}
	forEachPath(t, func(t *testing.T, r *Runtime) {
		dir := t.TempDir() // one for all: PWD and OLDPWD are exported
		baseline := runTrapped(t, r, dir, "cd .")
		for _, command := range commands {
			if !stateless(command) {
				t.Fatalf("stateless(%q) = false; this test is for commands it accepts", command)
			}
			rec := runTrapped(t, r, dir, command)
			if rec.cwd != rec.start || !maps.Equal(rec.exports, baseline.exports) {
				t.Errorf("%q changed the shell: cwd %q (started in %q), exports %v, want %v", command, rec.cwd, rec.start, rec.exports, baseline.exports)
			}
		}
	})
}

// trapped is what the EXIT trap reported for one command.
type trapped struct {
	start, cwd string
	exports    map[string]string
}

// runTrapped runs command in dir as Run does, but always behind the full
// wrapper, and returns what its trap reported.
func runTrapped(t *testing.T, r *Runtime, dir, command string) trapped {
	t.Helper()
	req := request(t, command)
	req.Cwd = dir
	if r.pool != nil {
		primeWarm(t, r.pool, req.Env)
	}
	nonce, err := newNonce()
	if err != nil {
		t.Fatal(err)
	}
	script, err := wrapperScript(nonce, req.Cwd, command)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.start(runtime.Request{Cwd: req.Cwd, Env: req.Env, MaxOutput: 1 << 20}, script)
	if err != nil {
		t.Fatal(err)
	}
	res := r.wait(context.Background(), p, 30*time.Second, nonce)
	if res.Cwd == "" || res.Exports == nil {
		t.Fatalf("%q: the trap reported nothing: %+v", command, res)
	}
	return trapped{start: req.Cwd, cwd: res.Cwd, exports: res.Exports}
}

// BenchmarkStateless is the cost Run adds to every command to decide
// whether the trap can go.
func BenchmarkStateless(b *testing.B) {
	for _, command := range []string{"true", "pytest -x 2>&1 | tail -n 20", `cd sub && export A="$(date)" && make test`} {
		b.Run(strings.Fields(command)[0], func(b *testing.B) {
			for b.Loop() {
				stateless(command)
			}
		})
	}
}

// TestStatelessNotWithFunctionsFromEnv: an environment can define
// functions (BASH_FUNC_*), and a function named like a program can run
// cd. Such an environment keeps the trap, whatever the command. (The
// daemon's session filter never lets one through; the runtime does not
// rely on that.)
func TestStatelessNotWithFunctionsFromEnv(t *testing.T) {
	r := newRuntime(t, 0) // no warm shell takes such an environment
	req := request(t, "ls >/dev/null")
	req.Env = append(slices.Clone(testEnv), "BASH_FUNC_ls%%=() {  builtin cd /; }")
	if res := run(t, r, context.Background(), req); res.Cwd != "/" {
		t.Errorf("Run(%q) with ls a function running cd: cwd %q, want /", req.Command, res.Cwd)
	}
}
