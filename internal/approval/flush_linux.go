package approval

import "golang.org/x/sys/unix"

// flushInput is tcflush(fd, TCIFLUSH). Linux drops both the line
// discipline's buffer and bytes still queued on their way to it.
func flushInput(fd int) error {
	return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
