// Command execbench measures the round trip of one command through a running Sidecar
// daemon beside two baselines measured by the same harness in the same run: the floor
// (bash started directly) and ssh with a ControlMaster connection already up. It also
// checks that the daemon's goroutines, open files and child processes return to where
// they were after a long run. It prints a markdown report to stdout and progress to
// stderr.
//
// Usage:
//
//	execbench -sidecar PATH [-ssh-port N -ssh-user U -ssh-key F -ssh-control P] [flags]
//
// bench/run.sh builds the binary, starts the ssh baseline and calls this; see
// bench/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	cfg, err := parseFlags(os.Args, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "execbench: %v\n", err)
		os.Exit(2)
	}
	// A Ctrl-C cancels the run; the deferred stops in run then end the daemon cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "execbench: %v\n", err)
		os.Exit(1)
	}
}
