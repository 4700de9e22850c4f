//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package approval

// On other systems there is no way here to discard early keystrokes or to
// guard against job control, so no prompt is ever shown: every Ask that
// reaches the terminal denies with no_tty.

func openDefaultTTY() (TTY, error) { return nil, ErrUnsupported }

func checkForeground(TTY) error { return ErrUnsupported }

func discardInput(TTY) error { return ErrUnsupported }
