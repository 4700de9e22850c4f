// Package testenv tells tests what they may assume about the machine they
// run on. Only _test.go files import it.
package testenv

import (
	"os"
	"testing"
)

// SkipOrFail skips loudly on a developer's machine that lacks a real part
// the test needs (a binary, root), and fails in CI (CI is set), where
// .ci/run installs every part: CI skips nothing.
func SkipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal("CI must run this test: " + why)
	}
	t.Skip("SKIPPED LOUDLY: " + why)
}
