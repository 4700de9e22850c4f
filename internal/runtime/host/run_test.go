//go:build linux

package host

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// runCase is one row of TestRun.
type runCase struct {
	name    string
	command string
	stdin   []byte
	env     []string
	setup   func(t *testing.T, dir string) // prepares the start dir
	want    runtime.Result                 // Cwd relative to the start dir; "-" means none
}

func TestRun(t *testing.T) {
	tests := []runCase{
		{
			name:    "echo",
			command: "echo hello",
			want:    runtime.Result{Output: []byte("hello\n")},
		},
		{
			name:    "stdout and stderr merged in order",
			command: "echo one; echo two >&2; echo three; echo four >&2",
			want:    runtime.Result{Output: []byte("one\ntwo\nthree\nfour\n")},
		},
		{
			name:    "exit status",
			command: "exit 7",
			want:    runtime.Result{ExitCode: 7},
		},
		{
			name:    "exit still reports cwd",
			command: "cd sub; exit 3",
			setup:   mkdir("sub"),
			want:    runtime.Result{ExitCode: 3, Cwd: "sub"},
		},
		{
			name:    "cd persists as cwd",
			command: "cd sub && pwd",
			setup:   mkdir("sub"),
			want:    runtime.Result{Output: []byte("{dir}/sub\n"), Cwd: "sub"},
		},
		{
			name:    "cwd is physical",
			command: "cd link",
			setup: func(t *testing.T, dir string) {
				mkdir("real")(t, dir)
				if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
					t.Fatal(err)
				}
			},
			want: runtime.Result{Cwd: "real"},
		},
		{
			name:    "cwd with newline and quote",
			command: "cd $'we\\'ird\\ndir'",
			setup:   mkdir("we'ird\ndir"),
			want:    runtime.Result{Cwd: "we'ird\ndir"},
		},
		{
			name:    "stdin reaches the command",
			command: "cat",
			stdin:   []byte("line 1\nline 2 \x00\xff"),
			want:    runtime.Result{Output: []byte("line 1\nline 2 \x00\xff")},
		},
		{
			name:    "nil stdin is at EOF",
			command: "cat; echo done",
			want:    runtime.Result{Output: []byte("done\n")},
		},
		{
			name:    "unread stdin does not block",
			command: "echo skipped",
			stdin:   bytes.Repeat([]byte("x"), 1<<20),
			want:    runtime.Result{Output: []byte("skipped\n")},
		},
		{
			name:    "syntax error",
			command: "if then",
			want:    runtime.Result{ExitCode: 2, Output: []byte("bash: eval: line 1: syntax error near unexpected token `then'\nbash: eval: line 1: `if then'\n")},
		},
		{
			name:    "error messages count the command's own lines",
			command: "echo first\nno-such-command-xyz",
			want:    runtime.Result{ExitCode: 127, Output: []byte("first\nbash: line 2: no-such-command-xyz: command not found\n")},
		},
		{
			name:    "killed by a signal",
			command: "kill -KILL $$",
			want:    runtime.Result{ExitCode: 137, Cwd: "-"},
		},
		{
			name:    "trap removed means no record",
			command: "trap - EXIT; exit 4",
			want:    runtime.Result{ExitCode: 4, Cwd: "-"},
		},
		{
			name:    "exec means no record",
			command: "exec true",
			want:    runtime.Result{Cwd: "-"},
		},
		{
			name:    "command cannot replace the trap's builtins",
			command: "printf() { :; }; pwd() { :; }; declare() { :; }; cd sub",
			setup:   mkdir("sub"),
			want:    runtime.Result{Cwd: "sub"},
		},
		{
			name:    "record pipe is closed for the command",
			command: "ls /proc/self/fd/3 2>/dev/null || echo closed",
			want:    runtime.Result{Output: []byte("closed\n")},
		},
		{
			name:    "quotes and dollars run verbatim",
			command: `printf '%s|' "it's" '$HOME' "\$x" ` + "'`id`'",
			want:    runtime.Result{Output: []byte("it's|$HOME|$x|`id`|")},
		},
		{
			name:    "zero-width space survives a C locale",
			command: "printf %s 'a\u200bb\xff'",
			env:     []string{"PATH=/usr/bin:/bin", "LANG=C"},
			want:    runtime.Result{Output: []byte("a\u200bb\xff")},
		},
		{
			name:    "nil stdin is /dev/null",
			command: "readlink /proc/$$/fd/0",
			want:    runtime.Result{Output: []byte("/dev/null\n")},
		},
		{
			name:    "stdin is a pipe",
			command: "readlink /proc/$$/fd/0 | cut -d: -f1",
			stdin:   []byte("unread"),
			want:    runtime.Result{Output: []byte("pipe\n")},
		},
		{
			name:    "programs see no fd of the runtime's",
			command: `sh -c 'for fd in 3 4 5; do [ -e /proc/self/fd/$fd ] && echo "fd $fd"; done; echo checked'`,
			want:    runtime.Result{Output: []byte("checked\n")},
		},
		{
			name:    "shell parameters as in bash -c",
			command: `echo "$0 $- $# $SHLVL $SECONDS"`,
			want:    runtime.Result{Output: []byte("bash hBc 0 1 0\n")},
		},
		{
			name:    "BASH_EXECUTION_STRING is the wrapper",
			command: `case $BASH_EXECUTION_STRING in "__sidecar_exit() "*"builtin eval '"*) echo wrapper;; esac; cd .`,
			want:    runtime.Result{Output: []byte("wrapper\n")},
		},
		{
			name:    "BASH_EXECUTION_STRING is the plain wrapper",
			command: `case $BASH_EXECUTION_STRING in "builtin cd -- "*"builtin eval '"*) echo wrapper;; esac`,
			want:    runtime.Result{Output: []byte("wrapper\n")},
		},
		{
			// On the warm path the payload is over 128 KiB, twice the
			// pipe's buffer, so it is written while bash reads it.
			name:    "long command full of quotes",
			command: "echo " + strings.Repeat(`"'"`, 8000),
			want:    runtime.Result{Output: []byte(strings.Repeat("'", 8000) + "\n")},
		},
		{
			name:    "long command with stdin",
			command: "cat #" + strings.Repeat("x", 5000),
			stdin:   []byte("in"),
			want:    runtime.Result{Output: []byte("in")},
		},
		{
			name:    "return is an error at the top level",
			command: "return 5; echo after",
			want:    runtime.Result{Output: []byte("bash: line 1: return: can only `return' from a function or sourced script\nafter\n")},
		},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for _, tt := range tests {
				testRunCase(t, p, tt)
			}
		})
	}
}

// testRunCase runs tt on a Runtime of its own as a parallel subtest of t.
func testRunCase(t *testing.T, p path, tt runCase) {
	t.Helper()
	t.Run(tt.name, func(t *testing.T) {
		t.Parallel()
		r := newRuntime(t, p.warmShells)
		req := request(t, tt.command)
		req.Stdin = tt.stdin
		if tt.env != nil {
			req.Env = tt.env
		}
		if tt.setup != nil {
			tt.setup(t, req.Cwd)
		}
		want := tt.want
		want.Output = bytes.ReplaceAll(want.Output, []byte("{dir}"), []byte(req.Cwd))
		switch want.Cwd {
		case "-":
			want.Cwd = ""
		default:
			want.Cwd = filepath.Join(req.Cwd, want.Cwd)
		}
		got := run(t, r, context.Background(), req)
		opts := cmp.Options{
			cmpopts.IgnoreFields(runtime.Result{}, "Duration", "Exports"),
			cmpopts.EquateEmpty(),
		}
		if diff := cmp.Diff(want, got, opts); diff != "" {
			t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.command, diff)
		}
		// A stateless command reports where it started and no exports
		// (unchanged); any other reports both when it reports a cwd.
		switch plain := stateless(tt.command); {
		case plain && got.Exports != nil:
			t.Errorf("Run(%q), stateless, reported exports", tt.command)
		case !plain && want.Cwd != "" && got.Exports == nil:
			t.Errorf("Run(%q) has a cwd but nil exports", tt.command)
		}
	})
}

func mkdir(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunOutputCap(t *testing.T) {
	tests := []struct {
		name      string
		command   string
		maxOutput int
		want      runtime.Result
	}{
		{"under the cap", "printf abc", 10, runtime.Result{Output: []byte("abc")}},
		{"exactly the cap", "printf abc", 3, runtime.Result{Output: []byte("abc")}},
		{"large output drained and counted", "head -c 5000000 /dev/zero", 1000,
			runtime.Result{Output: make([]byte, 1000), OmittedBytes: 4999000}},
		{"cut inside a rune moves it out", "printf 'aé€'", 2, runtime.Result{Output: []byte("a"), OmittedBytes: 5}},
		{"cut after a rune keeps it", "printf 'aé€'", 3, runtime.Result{Output: []byte("aé"), OmittedBytes: 3}},
		{"zero cap", "echo hi", 0, runtime.Result{OmittedBytes: 3}},
	}
	for _, p := range paths {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := newRuntime(t, p.warmShells)
				req := request(t, tt.command)
				req.MaxOutput = tt.maxOutput
				got := run(t, r, context.Background(), req)
				tt.want.Cwd = req.Cwd
				opts := cmp.Options{cmpopts.IgnoreFields(runtime.Result{}, "Duration", "Exports"), cmpopts.EquateEmpty()}
				if diff := cmp.Diff(tt.want, got, opts); diff != "" {
					t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.command, diff)
				}
			})
		}
	}
}

func TestRunNotStarted(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		dir := t.TempDir()
		file := filepath.Join(dir, "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		tests := []struct {
			name    string
			ctx     context.Context
			edit    func(*runtime.Request)
			wantErr error
		}{
			{"missing cwd", context.Background(), func(r *runtime.Request) { r.Cwd = filepath.Join(dir, "gone") }, runtime.ErrCwdUnusable},
			{"cwd is a file", context.Background(), func(r *runtime.Request) { r.Cwd = file }, runtime.ErrCwdUnusable},
			{"relative cwd", context.Background(), func(r *runtime.Request) { r.Cwd = "rel" }, runtime.ErrCwdUnusable},
			{"zero timeout", context.Background(), func(r *runtime.Request) { r.Timeout = 0 }, ErrInvalidRequest},
			{"negative max output", context.Background(), func(r *runtime.Request) { r.MaxOutput = -1 }, ErrInvalidRequest},
			{"NUL in command", context.Background(), func(r *runtime.Request) { r.Command = "echo a\x00b" }, ErrInvalidRequest},
			{"context already done", cancelled, func(*runtime.Request) {}, context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req := request(t, "echo should not run")
				tt.edit(&req)
				res, err := r.Run(tt.ctx, req)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Run error = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(runtime.Result{}, res); diff != "" {
					t.Errorf("Run result mismatch (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestRunConcurrent(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		const workers, each = 6, 5
		errs := make(chan error, workers*each)
		for w := range workers {
			go func() {
				for i := range each {
					dir := t.TempDir()
					sub := filepath.Join(dir, "d")
					if err := os.Mkdir(sub, 0o755); err != nil {
						errs <- err
						continue
					}
					want := strings.Repeat("x", w*each+i)
					res, err := r.Run(context.Background(), runtime.Request{
						Command: "cd d && export V=" + want + " && printf %s \"$V\"",
						Cwd:     dir, Env: testEnv, Timeout: 30 * time.Second, MaxOutput: 1 << 10,
					})
					switch {
					case err != nil:
						errs <- err
					case string(res.Output) != want || res.Exports["V"] != want || res.Cwd != sub:
						errs <- errors.New("crossed results: " + string(res.Output) + " " + res.Cwd)
					default:
						errs <- nil
					}
				}
			}()
		}
		for range workers * each {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}
