//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openDefaultTTY opens the process's controlling terminal. O_NOCTTY keeps a
// daemon without one from acquiring a terminal by accident; such a daemon
// gets ENXIO here and so denies with no_tty.
func openDefaultTTY() (TTY, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// checkForeground returns ErrNotForeground if t is this process's
// controlling terminal and another job owns it. Reading it then would stop
// the whole daemon with SIGTTIN, and discarding its input with SIGTTOU.
func checkForeground(t TTY) error {
	return control(t, func(fd int) error {
		pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		if errors.Is(err, unix.ENOTTY) {
			// Not our controlling terminal (or not a terminal, which
			// discardInput reports): job control cannot stop us on it.
			return nil
		}
		if err != nil {
			return fmt.Errorf("get foreground process group: %w", err)
		}
		if pgrp != unix.Getpgrp() {
			return ErrNotForeground
		}
		return nil
	})
}

// discardInput throws away everything typed on t and not yet read
// (tcflush(TCIFLUSH)), so only keys pressed after the prompt can answer it.
func discardInput(t TTY) error {
	return control(t, func(fd int) error {
		if err := flushInput(fd); err != nil {
			return fmt.Errorf("discard pending terminal input: %w", err)
		}
		return nil
	})
}

// control runs fn on t's descriptor without taking it out of non-blocking
// mode (see TTY).
func control(t TTY, fn func(fd int) error) error {
	rc, err := t.SyscallConn()
	if err != nil {
		return fmt.Errorf("reach terminal descriptor: %w", err)
	}
	var fnErr error
	if err := rc.Control(func(fd uintptr) { fnErr = fn(int(fd)) }); err != nil {
		return fmt.Errorf("reach terminal descriptor: %w", err)
	}
	return fnErr
}
