// Package gcsetting holds the garbage collector setting the daemon runs
// with, so that benchmarks of the work it does per command (classifying
// it, for one) can measure that work as the daemon runs it.
package gcsetting

import (
	"os"
	"runtime/debug"
)

// Percent is the daemon's GOGC. Its live heap is small (a few MiB) and each
// command leaves a short burst of garbage (the parsed command, the HTTP
// exchange, the audit record); collecting at five times the live heap
// rather than twice takes most collections, and the assists and write
// barriers they bring, off the path of a command, for a heap of about 20
// MiB under load.
const Percent = 400

// Apply sets Percent, unless the GOGC environment variable is set, which
// the Go runtime has already applied and which is left to win.
func Apply() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
}
