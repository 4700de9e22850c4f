//go:build linux

package host

import (
	"io"
	"os"
	"unicode/utf8"
)

// capture is an io.Writer that keeps the first limit bytes written to it
// and only counts the rest, so a reader can drain a pipe to its end in
// bounded memory.
type capture struct {
	limit   int
	kept    []byte
	omitted int64
}

func (c *capture) Write(p []byte) (int, error) {
	room := max(c.limit-len(c.kept), 0)
	n := min(room, len(p))
	c.kept = append(c.kept, p[:n]...)
	c.omitted += int64(len(p) - n)
	return len(p), nil
}

// cut returns the kept bytes, and the omitted count, after moving a rune
// the cap split in two from the kept bytes to the omitted ones. Output
// that was not cut is returned as it came, valid UTF-8 or not.
func (c *capture) cut() ([]byte, int64) {
	if c.omitted == 0 {
		return c.kept, 0
	}
	kept := c.kept
	// Find where the last rune starts; a multi-byte rune is at most
	// utf8.UTFMax bytes, so looking further back is pointless.
	for i := len(kept) - 1; i >= 0 && i >= len(kept)-utf8.UTFMax; i-- {
		if utf8.RuneStart(kept[i]) {
			if !utf8.FullRune(kept[i:]) {
				return kept[:i], c.omitted + int64(len(kept)-i)
			}
			break
		}
	}
	return kept, c.omitted
}

// drain copies f into c until EOF or f's read deadline, then closes done.
// A deadline is the expected end when a process that escaped the process
// group still holds the pipe. Read errors are dropped on purpose: whatever
// stops the read, the pipe has nothing more to give this request.
func drain(f *os.File, c *capture, done chan<- struct{}) {
	defer close(done)
	_, _ = io.Copy(c, f)
}
