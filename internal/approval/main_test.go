//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as the helper process of tty_linux_test.go.
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}
