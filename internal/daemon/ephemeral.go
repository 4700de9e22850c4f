package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Ephemeral is a daemon on 127.0.0.1 with a free port, a temporary
// workspace and a temporary state dir, for `sidecar demo`, `sidecar verify`
// and tests. Close stops it and removes both directories.
type Ephemeral struct {
	*Daemon
	root string
}

// StartEphemeral starts an ephemeral daemon in approval mode mode.
// Approvals that need a person are denied (nobody is asked).
func StartEphemeral(ctx context.Context, version, mode string) (*Ephemeral, error) {
	root, err := os.MkdirTemp("", "sidecar-ephemeral-")
	if err != nil {
		return nil, fmt.Errorf("ephemeral daemon: %w", err)
	}
	ws, state := filepath.Join(root, "workspace"), filepath.Join(root, "state")
	if err := os.Mkdir(ws, 0o700); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("ephemeral daemon: %w", err)
	}
	cfg := DefaultConfig()
	cfg.Version, cfg.Port, cfg.Workspace, cfg.StateDir, cfg.Approval = version, 0, ws, state, mode
	cfg.Approver = noPerson{}
	d, err := Start(ctx, cfg)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &Ephemeral{Daemon: d, root: root}, nil
}

// Close stops the daemon and removes its directories.
func (e *Ephemeral) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(e.Shutdown(ctx), os.RemoveAll(e.root))
}
