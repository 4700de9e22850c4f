//go:build linux

package host

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitExited blocks until process pid has exited, leaving it unreaped
// (WNOWAIT), then closes exited. While the leader is an unreaped zombie its
// pid cannot be reused, so signalling -pid still reaches only its group.
func waitExited(pid int, exited chan<- struct{}) {
	defer close(exited)
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			// Any other error (ECHILD) means there is nothing left to
			// wait for; cmd.Wait reports the details.
			return
		}
	}
}

// signalGroup sends sig to every process in process group pgid. The error
// is dropped on purpose: for a group this process created, with a valid
// signal, kill(2) can only fail with ESRCH, meaning the group is already
// empty, which is what the caller wants anyway.
func signalGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

// terminate asks group pgid to stop with SIGTERM and, if the leader has not
// exited after grace, forces it with SIGKILL. It returns once the leader
// has exited. The grace belongs to the shell: once it is gone, Run kills
// whatever is left of its group at once, as after any other exit.
func terminate(pgid int, exited <-chan struct{}, grace time.Duration) {
	signalGroup(pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		return
	case <-t.C:
	}
	signalGroup(pgid, syscall.SIGKILL)
	<-exited
}
