package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// procsWithArg lists processes that have arg as one of their arguments.
func procsWithArg(t *testing.T, arg string) []string {
	t.Helper()
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue // it ended while we looked
		}
		for _, a := range bytes.Split(b, []byte{0}) {
			if string(a) == arg {
				found = append(found, m+": "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
				break
			}
		}
	}
	return found
}

// waitFor polls cond until it holds; the limit only guards against a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
