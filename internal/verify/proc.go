package verify

import (
	"bytes"
	"os"
	"path/filepath"
)

// processesWithArg lists /proc/<pid>/cmdline entries that contain arg as
// one of their arguments.
func processesWithArg(arg string) []string {
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline") // the pattern is valid
	var found []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue // the process ended while we looked
		}
		for _, a := range bytes.Split(b, []byte{0}) {
			if string(a) == arg {
				found = append(found, string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
				break
			}
		}
	}
	return found
}
