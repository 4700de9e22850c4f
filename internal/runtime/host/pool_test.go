//go:build linux

package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// primeWarm records a demand for env, as a request would, and waits until
// a shell started with env is idle.
func primeWarm(t *testing.T, p *pool, env []string) {
	t.Helper()
	demand(p, env)
	eventually(t, "a warm shell is idle", func() bool {
		return slices.ContainsFunc(idleShells(p), func(w *warmShell) bool { return slices.Equal(w.env, env) })
	})
}

// demand records a demand for env, as a request would, and wakes refill.
func demand(p *pool, env []string) {
	p.mu.Lock()
	p.noteLocked(env)
	p.mu.Unlock()
	p.wake()
}

// statsOf returns p's counters.
func statsOf(p *pool) poolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// idleShells returns a copy of p's idle list.
func idleShells(p *pool) []*warmShell {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.idle)
}

// idleEnvs returns the environments of p's idle shells, sorted.
func idleEnvs(p *pool) []string {
	var envs []string
	for _, w := range idleShells(p) {
		envs = append(envs, strings.Join(w.env, " "))
	}
	slices.Sort(envs)
	return envs
}

// settle waits until refill has nothing left to do: no wake-up pending, not
// busy, and one idle shell for each demanded environment.
func settle(t testing.TB, p *pool) {
	t.Helper()
	eventually(t, "the pool is settled", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.busy || len(p.kick) > 0 || len(p.idle) != len(p.demand) {
			return false
		}
		var want, got []string
		for i := range p.demand {
			want = append(want, strings.Join(p.demand[i], "\x00"))
			got = append(got, strings.Join(p.idle[i].env, "\x00"))
		}
		slices.Sort(want)
		slices.Sort(got)
		return slices.Equal(want, got)
	})
}

// pidGone reports whether no process (not even a zombie) has pid.
func pidGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func TestPoolFollowsDemand(t *testing.T) {
	r := newRuntime(t, 2)
	envA := append(slices.Clone(testEnv), "SESSION=a")
	envB := append(slices.Clone(testEnv), "SESSION=b")
	envC := append(slices.Clone(testEnv), "SESSION=c")
	key := func(env []string) string { return strings.Join(env, " ") }
	runWith := func(env []string) {
		t.Helper()
		req := request(t, "true")
		req.Env = env
		if _, err := r.Run(context.Background(), req); err != nil {
			t.Fatalf("Run: %v", err)
		}
	}

	runWith(envA)
	runWith(envB)
	settle(t, r.pool)
	if diff := cmp.Diff([]string{key(envA), key(envB)}, idleEnvs(r.pool)); diff != "" {
		t.Errorf("idle shells after a and b (-want +got):\n%s", diff)
	}
	old := idleShells(r.pool)

	runWith(envC)
	runWith(envC)
	settle(t, r.pool)
	if diff := cmp.Diff([]string{key(envC), key(envC)}, idleEnvs(r.pool)); diff != "" {
		t.Errorf("idle shells after c, c (-want +got):\n%s", diff)
	}
	for _, w := range old {
		if pid := w.cmd.Process.Pid; !pidGone(pid) {
			t.Errorf("shell %d for %q no longer wanted but still there", pid, key(w.env))
		}
	}
}

func TestPoolIdleShellUsesNoCPU(t *testing.T) {
	r := newRuntime(t, 1)
	primeWarm(t, r.pool, testEnv)
	pid := idleShells(r.pool)[0].cmd.Process.Pid
	// utime and stime, in clock ticks, and the state letter.
	sample := func() (string, string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(b), ") ") // the command name may hold spaces
		f := strings.Fields(rest)
		return f[0], f[11] + " " + f[12]
	}
	eventually(t, "the warm shell sleeps", func() bool { state, _ := sample(); return state == "S" })
	_, before := sample()
	time.Sleep(300 * time.Millisecond) // a spinning shell would gain ~30 ticks
	state, after := sample()
	if state != "S" || after != before {
		t.Errorf("idle warm shell: state %s, cpu ticks %s then %s; want S and unchanged", state, before, after)
	}
}

func TestPoolCloseLeavesNothing(t *testing.T) {
	r := newRuntime(t, 3)
	primeWarm(t, r.pool, testEnv)
	primeWarm(t, r.pool, testEnv)
	settle(t, r.pool)
	var pids []int
	for _, w := range idleShells(r.pool) {
		pids = append(pids, w.cmd.Process.Pid)
	}
	if len(pids) < 2 {
		t.Fatalf("idle shells = %v, want at least 2", pids)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// Close reaps them: not even a zombie is left.
	for _, pid := range pids {
		if !pidGone(pid) {
			t.Errorf("warm shell %d still exists after Close", pid)
		}
	}
	if n := len(idleShells(r.pool)); n != 0 {
		t.Errorf("%d idle shells after Close", n)
	}
}

func TestPoolDiscardsDeadShell(t *testing.T) {
	r := newRuntime(t, 1)
	primeWarm(t, r.pool, testEnv)
	w := idleShells(r.pool)[0]
	pid := w.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the killed shell is a zombie", w.exited)
	before := statsOf(r.pool)
	res, err := r.Run(context.Background(), request(t, "echo fresh"))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if string(res.Output) != "fresh\n" || res.ExitCode != 0 {
		t.Errorf("Run = %q exit %d, want \"fresh\\n\" exit 0", res.Output, res.ExitCode)
	}
	want := poolStats{hits: before.hits, misses: before.misses + 1, dead: before.dead + 1}
	if diff := cmp.Diff(want, statsOf(r.pool), cmp.AllowUnexported(poolStats{})); diff != "" {
		t.Errorf("stats mismatch (-want +got):\n%s", diff)
	}
	if !pidGone(pid) {
		t.Errorf("dead warm shell %d was not reaped", pid)
	}
}

func TestPoolNotUsed(t *testing.T) {
	dir := t.TempDir()
	bashEnv := filepath.Join(dir, "bash_env")
	// Each time bash sources it, one more line.
	if err := os.WriteFile(bashEnv, []byte("echo sourced >> "+filepath.Join(dir, "count")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     []string
		command string
		demand  bool // the request's env is remembered for later requests
	}{
		{"BASH_ENV", append(slices.Clone(testEnv), "BASH_ENV="+bashEnv), "true", false},
		{"exported function", append(slices.Clone(testEnv), "BASH_FUNC_builtin%%=() { :; }"), "true", false},
		{"SHELLOPTS", append(slices.Clone(testEnv), "SHELLOPTS=xtrace"), "true", false},
		{"PWD", append(slices.Clone(testEnv), "PWD=/"), "true", false},
		{"long wrapper", testEnv, "true #" + strings.Repeat("x", maxWarmScript), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRuntime(t, 2)
			primeWarm(t, r.pool, testEnv)
			settle(t, r.pool)
			req := request(t, tt.command)
			req.Env = tt.env
			res, err := r.Run(context.Background(), req)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.ExitCode != 0 {
				t.Errorf("Run exit %d, output %q; want 0", res.ExitCode, res.Output)
			}
			settle(t, r.pool)
			r.pool.mu.Lock()
			demanded := slices.ContainsFunc(r.pool.demand, func(env []string) bool { return slices.Equal(env, tt.env) })
			stats := r.pool.stats
			r.pool.mu.Unlock()
			if stats.hits != 0 || demanded != tt.demand {
				t.Errorf("after Run: hits %d, env demanded %v; want 0 hits, demanded %v", stats.hits, demanded, tt.demand)
			}
		})
	}
	// BASH_ENV ran once, for its one request, never in an idle shell.
	if b, err := os.ReadFile(filepath.Join(dir, "count")); err != nil || string(b) != "sourced\n" {
		t.Errorf("BASH_ENV count file = %q, %v; want one line", b, err)
	}
}

func TestPoolConcurrentTakes(t *testing.T) {
	// More concurrent requests than warm shells: some go cold, all
	// results are right, and the pool ends up with what it wants.
	r := newRuntime(t, 2)
	primeWarm(t, r.pool, testEnv)
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			req := runtime.Request{Command: "echo " + strconv.Itoa(i), Cwd: t.TempDir(), Env: testEnv, Timeout: 30 * time.Second, MaxOutput: 100}
			res, err := r.Run(context.Background(), req)
			switch {
			case err != nil:
				errs <- err
			case string(res.Output) != strconv.Itoa(i)+"\n" || res.Cwd != req.Cwd:
				errs <- errors.New("wrong result " + string(res.Output))
			default:
				errs <- nil
			}
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	settle(t, r.pool)
	if s := statsOf(r.pool); s.hits+s.misses != n || s.hits == 0 {
		t.Errorf("stats %+v: want %d requests with at least one hit", s, n)
	}
}

func TestPoolRefillsAtOnceWhenNoneIsLeft(t *testing.T) {
	// The only warm shell is taken by a command that runs until told to
	// stop; a second request must not have to wait for it to end to find
	// a warm shell.
	r := newRuntime(t, 1)
	primeWarm(t, r.pool, testEnv)
	req := request(t, "until [ -e stop ]; do sleep 0.01; done")
	done := make(chan runtime.Result, 1)
	go func() {
		res, err := r.Run(context.Background(), req)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	eventually(t, "a new warm shell is idle while the command runs", func() bool {
		return statsOf(r.pool).hits == 1 && len(idleShells(r.pool)) == 1
	})
	if err := os.WriteFile(filepath.Join(req.Cwd, "stop"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.ExitCode != 0 {
		t.Errorf("Run exit %d, output %q; want 0", res.ExitCode, res.Output)
	}
}
