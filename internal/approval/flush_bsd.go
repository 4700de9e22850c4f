//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import "golang.org/x/sys/unix"

// bsdFREAD is FREAD from <sys/fcntl.h>: TIOCFLUSH's "flush the input queue".
const bsdFREAD = 0x1

// flushInput is tcflush(fd, TCIFLUSH), which the BSD libcs implement as
// TIOCFLUSH with FREAD.
func flushInput(fd int) error {
	return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, bsdFREAD)
}
