package approval

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// errLineTooLong reports an answer longer than any answer worth reading.
var errLineTooLong = errors.New("answer line too long")

// readLine reads from r up to the end of the first line and returns the
// line without its terminator. A line ends at '\n', or at '\r' for a
// terminal in raw mode; anything after the terminator in the same read is
// dropped. A line longer than limit bytes is read to its end and reported
// as errLineTooLong, with its first bytes (up to limit): a caller that
// takes the line as an answer must not mistake it for them.
// Read errors, including io.EOF before a terminator and a passed deadline
// (os.ErrDeadlineExceeded), are returned as they are.
func readLine(r io.Reader, limit int) (string, error) {
	var (
		line     []byte
		overflow bool
		buf      [64]byte
	)
	for {
		n, err := r.Read(buf[:])
		chunk := buf[:n]
		end := slices.IndexFunc(chunk, func(c byte) bool { return c == '\n' || c == '\r' })
		if end >= 0 {
			chunk = chunk[:end]
		}
		if len(line)+len(chunk) > limit {
			overflow = true
			chunk = chunk[:limit-len(line)]
		}
		line = append(line, chunk...)
		if end >= 0 {
			if overflow {
				return string(line), errLineTooLong
			}
			return string(line), nil
		}
		if err != nil {
			return "", fmt.Errorf("read answer: %w", err)
		}
	}
}
