//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

func TestWarmPayloadGolden(t *testing.T) {
	tests := []struct {
		golden string
		stdin  bool
	}{
		{"warm_payload.golden", false},
		{"warm_payload_stdin.golden", true},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := warmPayload("/work/it's here", "echo 'hi' && exit 3\n", tt.stdin)
			if err != nil {
				t.Fatalf("warmPayload: %v", err)
			}
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("payload mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBootstrapMatchesConstants(t *testing.T) {
	for _, want := range []string{
		fmt.Sprintf("builtin source /dev/fd/%d;", scriptFD),
		fmt.Sprintf("[[ $? == %d ]]", payloadDone),
	} {
		if !strings.Contains(bootstrap, want) {
			t.Errorf("bootstrap %q does not contain %q", bootstrap, want)
		}
	}
}

func TestWarmable(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want bool
	}{
		{"empty", nil, true},
		{"ordinary", []string{"PATH=/bin", "LANG=C", "VIRTUAL_ENV=/v", "NOVALUE"}, true},
		{"BASH_ENV", []string{"PATH=/bin", "BASH_ENV=/x"}, false},
		{"LD_PRELOAD", []string{"LD_PRELOAD=/x.so"}, false},
		{"exported function", []string{"BASH_FUNC_f%%=() { :; }"}, false},
		{"BASHOPTS", []string{"BASHOPTS=extdebug"}, false},
		{"SHELLOPTS", []string{"SHELLOPTS=xtrace"}, false},
		{"PS4", []string{"PS4=$(id)"}, false},
		{"POSIXLY_CORRECT", []string{"POSIXLY_CORRECT=1"}, false},
		{"ENV", []string{"ENV=/x"}, false},
		{"PWD", []string{"PWD=/"}, false},
		{"SECONDS", []string{"SECONDS=5"}, false},
		{"name only", []string{"BASH_ENV"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := warmable(tt.env); got != tt.want {
				t.Errorf("warmable(%q) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

// TestWarmShellRunsOnlyCompletePayload feeds warm shells every prefix of a
// payload, as a daemon dying mid-write would leave it: only the whole
// payload (its final newline aside) may run anything.
func TestWarmShellRunsOnlyCompletePayload(t *testing.T) {
	dir := t.TempDir()
	nonce, err := newNonce()
	if err != nil {
		t.Fatal(err)
	}
	wrapper, err := wrapperScript(nonce, dir, "touch ran-'$((n++))'")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := warmPayload(dir, wrapper, false)
	if err != nil {
		t.Fatal(err)
	}
	ran := func(prefix int) bool {
		t.Helper()
		w, err := startWarm(DefaultShell, testEnv)
		if err != nil {
			t.Fatal(err)
		}
		defer closeFiles([]*os.File{w.outR, w.recF})
		_, _ = w.scriptW.Write([]byte(payload[:prefix])) // EPIPE would mean the shell died early
		closeFiles([]*os.File{w.scriptW, w.stdinW})
		_ = w.cmd.Wait() // any status: an incomplete payload fails to parse
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		return len(entries) > 0
	}
	for prefix := range len(payload) + 1 {
		want := prefix >= len(payload)-1
		if got := ran(prefix); got != want {
			t.Errorf("payload cut to %d of %d bytes (%q…): ran = %v, want %v", prefix, len(payload), payload[max(0, prefix-20):prefix], got, want)
		}
	}
}

func TestPoolStartErrorNoRetryLoop(t *testing.T) {
	env := []string{"PATH=/bin", "BAD=a\x00b"} // exec refuses a NUL byte
	var errs []string
	for _, p := range paths {
		r := newRuntime(t, p.warmShells)
		req := request(t, "true")
		req.Env = env
		_, err := r.Run(context.Background(), req)
		if err == nil {
			t.Fatalf("%s: Run with a NUL byte in Env succeeded", p.name)
		}
		errs = append(errs, err.Error())
		if r.pool == nil {
			continue
		}
		idle := func() bool {
			r.pool.mu.Lock()
			defer r.pool.mu.Unlock()
			return r.pool.stats.startErrors > 0 && !r.pool.busy && len(r.pool.kick) == 0
		}
		eventually(t, "refill tried and gave up", idle)
		time.Sleep(50 * time.Millisecond) // a retry loop would make many more attempts
		if got := statsOf(r.pool).startErrors; got != 1 {
			t.Errorf("warm start attempts = %d, want 1 for one request", got)
		}
	}
	if errs[0] != errs[1] {
		t.Errorf("errors differ: cold %q, warm %q", errs[0], errs[1])
	}
}

func TestRunParallelWarmAndColdAgree(t *testing.T) {
	// The same commands on both paths, compared with each other rather
	// than with a fixed answer: whatever a fresh shell shows, a warm one
	// must show too.
	commands := []string{
		// Left out: values that differ from one shell to the next
		// anyway; BASH_ARGC, which bash fills in on first use (the
		// bootstrap's `source` is one), showing [0]="0" from then on;
		// SECONDS, which shows the value assigned to reset it.
		`declare -p | grep -v -e '^declare -[a-z-]* \(BASH_EXECUTION_STRING\|BASHPID\|EPOCH[A-Z]*\|S\?RANDOM\|PPID\|BASH_ARGC\|SECONDS\|_\)\(=\|$\)'`,
		"shopt; set -o",
		"trap -p; alias; declare -F; hash; jobs; ulimit -a; umask",
		`echo "$_ ${#BASH_SOURCE[@]} ${#FUNCNAME[@]} ${BASH_LINENO[*]} ${BASH_ARGC[*]} $BASH_SUBSHELL"; caller || echo top`,
		"echo $LINENO\nfalse\nf() { echo $LINENO; no-such-command-xyz; }\nf",
		"cd -; pwd; dirs",
	}
	dir := t.TempDir()
	for _, command := range commands {
		var outs []string
		for _, p := range paths {
			req := request(t, command)
			req.Cwd = dir
			got := run(t, newRuntime(t, p.warmShells), context.Background(), req)
			outs = append(outs, fmt.Sprintf("exit %d\n%s", got.ExitCode, got.Output))
		}
		if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
			t.Errorf("%q differs (-cold +warm):\n%s", command, diff)
		}
	}
}

func TestRunStartDirectory(t *testing.T) {
	// A fresh shell starts in the physical directory; cd to the requested
	// path (here through a symlink) leaves that physical path in OLDPWD.
	forEachPath(t, func(t *testing.T, r *Runtime) {
		req := request(t, `printf '%s|%s' "$PWD" "$OLDPWD"`)
		base := req.Cwd
		mkdir("real")(t, base)
		if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
			t.Fatal(err)
		}
		req.Cwd = filepath.Join(base, "link")
		got := run(t, r, context.Background(), req)
		want := runtime.Result{Output: []byte(req.Cwd + "|" + filepath.Join(base, "real")), Cwd: filepath.Join(base, "real")}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(runtime.Result{}, "Duration", "Exports"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Run mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestRunSecondsCountFromTheRequest(t *testing.T) {
	r := newRuntime(t, 1)
	primeWarm(t, r.pool, testEnv)
	time.Sleep(1100 * time.Millisecond) // the warm shell is now over a second old
	got := run(t, r, context.Background(), request(t, "echo $SECONDS"))
	if string(got.Output) != "0\n" {
		t.Errorf("SECONDS = %q, want \"0\\n\"", got.Output)
	}
}
