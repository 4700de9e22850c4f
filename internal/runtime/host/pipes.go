//go:build linux

package host

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// pipes collects the pipes made for one shell. The parent keeps its ends
// and passes the child's to exec; the child's are closed once the child
// holds its own copies (or failed to start), and the parent's too if it
// failed. Every end is close-on-exec, so no other child inherits one.
type pipes struct {
	parent, child []*os.File
}

// fromChild makes a pipe the child writes and the parent reads.
func (ps *pipes) fromChild(what string) (parentR, childW *os.File, err error) {
	parentR, childW, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("make %s pipe: %w", what, err)
	}
	ps.parent, ps.child = append(ps.parent, parentR), append(ps.child, childW)
	return parentR, childW, nil
}

// toChild makes a pipe the parent writes and the child reads.
func (ps *pipes) toChild(what string) (childR, parentW *os.File, err error) {
	childR, parentW, err = os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("make %s pipe: %w", what, err)
	}
	ps.parent, ps.child = append(ps.parent, parentW), append(ps.child, childR)
	return childR, parentW, nil
}

// done closes the child's ends, and the parent's as well when failed.
func (ps *pipes) done(failed bool) {
	closeFiles(ps.child)
	if failed {
		closeFiles(ps.parent)
	}
}

// shellCmd is how every shell is started: `bash --noprofile --norc -c
// script` with env exactly (never the daemon's own), stdout and stderr on
// out, extra as fds 3, 4, …, and a session of its own from birth, as sshd
// gives one. A new session is also a process group of its own, so that the
// whole group can be signalled, and it has no controlling terminal: a
// command cannot open the daemon's terminal as /dev/tty, where the person
// answers approval prompts, to write a forged prompt or push keystrokes
// into its input (TIOCSTI works only on the caller's controlling
// terminal). Stdin is left to the caller; nil means /dev/null.
func shellCmd(shell, script string, env []string, dir string, out *os.File, extra ...*os.File) *exec.Cmd {
	if env == nil {
		env = []string{} // a nil Env would make exec pass the daemon's own
	}
	return &exec.Cmd{
		Path:        shell,
		Args:        []string{"bash", "--noprofile", "--norc", "-c", script},
		Env:         env,
		Dir:         dir,
		Stdout:      out,
		Stderr:      out,
		ExtraFiles:  extra,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
}

// closeFiles closes fs. Close errors on pipe ends carry no information the
// caller could act on (no data is buffered in user space), so they are
// dropped.
func closeFiles(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
