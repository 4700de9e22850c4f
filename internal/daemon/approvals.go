package daemon

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/approver"
	"github.com/sidecarhq/sidecar/internal/server"
)

// attachedApprovals is the approver socket and its serve loop.
type attachedApprovals struct {
	srv    *approver.Server
	served chan error // the Serve loop's result, once it returns
}

// startApprovals builds the approval step: the grants, the daemon's own
// terminal, and the approver socket in the state dir that `sidecar approve`
// attaches to, all behind one approval.Gate. Config.Approver, when set,
// replaces all of it.
func startApprovals(c checked) (server.Approver, *attachedApprovals, error) {
	if c.Approver != nil {
		return c.Approver, nil, nil
	}
	srv, err := approver.Listen(filepath.Join(c.StateDir, approver.SocketName),
		approver.Options{PID: os.Getpid(), Workspace: c.workspace})
	if err != nil {
		return nil, nil, fmt.Errorf("approver socket: %w", err)
	}
	a := &attachedApprovals{srv: srv, served: make(chan error, 1)}
	go func() { a.served <- srv.Serve() }()
	gate := approval.NewGate(approval.GateOptions{
		Terminal: approval.New(approval.Options{Wait: c.ApprovalWait}),
		Attached: srv,
		Grants:   approval.NewGrants(0),
		Wait:     c.ApprovalWait,
	})
	return gate, a, nil
}

// closeApprovals closes the socket (pending questions are answered no) and
// waits for its serve loop. A nil a is a no-op.
func closeApprovals(a *attachedApprovals) error {
	if a == nil {
		return nil
	}
	err := a.srv.Close()
	if serveErr := <-a.served; serveErr != nil && err == nil {
		err = serveErr
	}
	return err
}
