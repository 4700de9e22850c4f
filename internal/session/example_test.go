package session_test

import (
	"fmt"

	"github.com/sidecarhq/sidecar/internal/session"
)

func ExampleEnv() {
	base := []string{"HOME=/home/me", "PATH=/usr/bin:/bin"}
	exported := map[string]string{ // what the last command exported
		"PATH":       "/tmp/evil:/usr/bin",
		"LD_PRELOAD": "/tmp/evil.so",
		"NODE_ENV":   "test",
	}
	for _, kv := range session.Env(base, exported) {
		fmt.Println(kv)
	}
	// Output:
	// HOME=/home/me
	// NODE_ENV=test
	// PATH=/usr/bin:/bin
}
