package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/sidecarhq/sidecar/internal/gcsetting"
)

// shutdownGrace bounds how long a stopping daemon waits for requests to
// answer after their process groups were killed.
const shutdownGrace = 10 * time.Second

// Run is `sidecar serve`: start, announce, serve until ctx is done (SIGINT or
// SIGTERM), then shut down cleanly.
func Run(ctx context.Context, cfg Config) error {
	gcsetting.Apply()
	d, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	if !isLoopbackHost(cfg.Host) {
		fmt.Fprintf(cfg.Stderr, "sidecar: WARNING: listening on %s, not loopback: anyone who can reach this address and holds the token can ask to run commands here\n", cfg.Host)
	}
	fmt.Fprintf(cfg.Stdout, "Sidecar %s listening on %s\n", cfg.Version, d.URL)
	fmt.Fprintf(cfg.Stdout, "  workspace  %s\n  approval   %s\n  state dir  %s\n", d.Workspace, cfg.Approval, d.StateDir)
	if cfg.NoAudit {
		fmt.Fprintf(cfg.Stdout, "  audit      OFF (--no-audit)\n")
	}
	fmt.Fprintf(cfg.Stdout, "Pair a remote Hermes with: sidecar pair\n")

	select {
	case <-ctx.Done():
	case <-d.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := d.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	fmt.Fprintf(cfg.Stderr, "sidecar: stopped\n")
	return nil
}
