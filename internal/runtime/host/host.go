//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// minBashMajor is the oldest bash whose `declare -px` output and builtins
// the wrapper and parser were written for.
const minBashMajor = 4

// Runtime runs commands on the host as the current user. It is safe for
// concurrent use.
type Runtime struct {
	shell        string
	killGrace    time.Duration
	drainTimeout time.Duration
	groups       *lingering
	pool         *pool          // nil without warm shells
	reapers      sync.WaitGroup // goroutines reaping shells answered early
	early        atomic.Int64   // shells answered before their exit, for tests and benchmarks
	exports      exportsMemo    // the last `declare -px` parsed
	closed       atomic.Bool
}

// New checks opts and the shell and returns a Runtime. It runs the shell
// once to confirm that it is bash. With Options.WarmShells it also starts
// the one goroutine that keeps warm shells ready; Close stops it.
func New(opts Options) (*Runtime, error) {
	r := &Runtime{shell: opts.Shell, killGrace: opts.KillGrace, drainTimeout: opts.DrainTimeout, groups: newLingering()}
	if r.shell == "" {
		r.shell = DefaultShell
	}
	if r.killGrace == 0 {
		r.killGrace = DefaultKillGrace
	}
	if r.drainTimeout == 0 {
		r.drainTimeout = DefaultDrainTimeout
	}
	if r.killGrace < 0 || r.drainTimeout < 0 {
		return nil, fmt.Errorf("%w: KillGrace %v and DrainTimeout %v must not be negative", ErrInvalidOptions, r.killGrace, r.drainTimeout)
	}
	if opts.WarmShells < 0 || opts.WarmShells > MaxWarmShells {
		return nil, fmt.Errorf("%w: WarmShells %d is not between 0 and %d", ErrInvalidOptions, opts.WarmShells, MaxWarmShells)
	}
	if err := checkShell(r.shell); err != nil {
		return nil, err
	}
	if opts.WarmShells > 0 {
		r.pool = newPool(r.shell, opts.WarmShells)
	}
	return r, nil
}

// Name reports the runtime kind, "host".
func (r *Runtime) Name() string { return "host" }

// Close kills the idle warm shells and the process groups of finished
// commands that still have background jobs running, so nothing a command
// started outlives the daemon. It does not stop commands still running;
// cancel their contexts for that. Run fails with ErrClosed after Close;
// calling Close again does nothing more.
func (r *Runtime) Close() error {
	r.closed.Store(true)
	if r.pool != nil {
		r.pool.close()
	}
	r.groups.killAll()
	r.reapers.Wait()
	return nil
}

// checkShell fails unless path is an executable bash of a supported version.
func checkShell(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrShellUnusable, path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%w: %s is not an executable file", ErrShellUnusable, path)
	}
	// A hang guard only; bash answers in milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--noprofile", "--norc", "-c", `builtin printf %s "${BASH_VERSINFO[0]}"`)
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: %s does not run as bash: %w", ErrShellUnusable, path, err)
	}
	major, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return fmt.Errorf("%w: %s is not bash (no BASH_VERSINFO)", ErrShellUnusable, path)
	}
	if major < minBashMajor {
		return fmt.Errorf("%w: %s is bash %d, need %d or newer", ErrShellUnusable, path, major, minBashMajor)
	}
	return nil
}
