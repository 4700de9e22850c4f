// Command sidecar is the one Sidecar binary: the local daemon and every
// verb of its CLI. All logic lives under internal/.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/sidecarhq/sidecar/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Execute(ctx, cli.Env{
		Version: version, Args: os.Args[1:],
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
	})
	stop()
	os.Exit(code)
}
