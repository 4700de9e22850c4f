package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/runtime"
	"github.com/sidecarhq/sidecar/internal/runtime/host"
	"github.com/sidecarhq/sidecar/internal/server"
	"github.com/sidecarhq/sidecar/internal/session"
	"github.com/sidecarhq/sidecar/internal/statedir"
	"github.com/sidecarhq/sidecar/internal/token"
)

// Daemon is a running `sidecar serve`.
type Daemon struct {
	URL       string
	Token     token.Token
	Workspace string
	StateDir  string

	http      *http.Server
	server    *server.Server
	runtime   runtime.Runtime
	audit     *audit.Log
	approvals *attachedApprovals // nil when Config.Approver replaced them
	serveDone chan struct{}      // closed when the serve loop returns
	serveErr  error              // its error, readable once serveDone is closed
}

// Start validates cfg, prepares every part and starts serving. The caller
// must call Shutdown.
func Start(ctx context.Context, cfg Config) (*Daemon, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if err := statedir.Ensure(c.StateDir); err != nil {
		return nil, err
	}
	tok, created, err := token.LoadOrCreate(c.StateDir, c.RotateToken)
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(c.Stderr, "sidecar: wrote a new token to %s\n", token.Path(c.StateDir))
	}
	classifier, err := BuildPolicy(PolicyOptions{
		Mode: c.mode, Allow: c.allow, Deny: c.deny, Workspace: c.workspace,
		AllowOutsideWorkspace: c.AllowOutsideWorkspace, StateDir: c.StateDir, PolicyFile: c.PolicyFile,
	})
	if err != nil {
		return nil, err
	}
	rt, err := host.New(host.Options{WarmShells: 2})
	if err != nil {
		return nil, fmt.Errorf("host runtime: %w", err)
	}
	sessions, err := session.OpenStore(filepath.Join(c.StateDir, "sessions"))
	if err != nil {
		return nil, err
	}
	var log *audit.Log
	var auditLog server.AuditLog // stays a nil interface with --no-audit
	if !c.NoAudit {
		log, err = audit.Open(audit.Options{Dir: c.StateDir, Sync: c.AuditSync})
		if err != nil {
			return nil, fmt.Errorf("audit log: %w (check it with `sidecar log verify`)", err)
		}
		auditLog = log
	}
	gate, attached, err := startApprovals(c)
	if err != nil {
		closeLog(log)
		return nil, err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	if err != nil {
		closeApprovals(attached)
		closeLog(log)
		return nil, fmt.Errorf("listen on %s:%d: %w", c.Host, c.Port, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv, err := server.New(server.Config{
		Version: c.Version, Token: tok, Workspace: c.workspace, AllowOutsideWorkspace: c.AllowOutsideWorkspace,
		Mode: c.mode, PolicySummary: policySummary(classifier),
		DefaultTimeout: c.Timeout, MaxTimeout: c.MaxTimeout, ApprovalTimeout: c.ApprovalWait, MaxOutput: c.MaxOutput,
		MaxBody: DefaultMaxBody, MaxConcurrent: c.MaxConcurrent, AllowedHosts: allowedHosts(c),
		Policy: classifier, Approver: gate, Audit: auditLog, Runtime: rt, Sessions: sessions,
		BaseEnv: session.BaseEnv(os.LookupEnv),
		Logger:  slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Started: time.Now(),
	}, port)
	if err != nil {
		ln.Close()
		closeApprovals(attached)
		closeLog(log)
		return nil, err
	}
	d := &Daemon{
		URL:       "http://" + net.JoinHostPort(urlHost(c.Host), strconv.Itoa(port)),
		Token:     tok,
		Workspace: c.workspace,
		StateDir:  c.StateDir,
		server:    srv,
		runtime:   rt,
		audit:     log,
		approvals: attached,
		serveDone: make(chan struct{}),
		http: &http.Server{
			Handler:           srv.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
		},
	}
	go func() {
		d.serveErr = d.http.Serve(ln)
		close(d.serveDone)
	}()
	return d, nil
}

// Shutdown stops accepting, kills running process groups (their requests
// answer 130), waits for the handlers, kills the background jobs finished
// commands left, then flushes and closes the audit log.
func (d *Daemon) Shutdown(ctx context.Context) error {
	d.server.BeginShutdown()
	errs := []error{d.http.Shutdown(ctx)}
	<-d.serveDone
	if !errors.Is(d.serveErr, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("serve: %w", d.serveErr))
	}
	errs = append(errs, closeApprovals(d.approvals), d.runtime.Close())
	if d.audit != nil {
		errs = append(errs, d.audit.Close())
	}
	return errors.Join(errs...)
}

// Done is closed when the daemon stops serving on its own (a listener
// failure); Shutdown still has to be called.
func (d *Daemon) Done() <-chan struct{} { return d.serveDone }

func closeLog(l *audit.Log) {
	if l != nil {
		_ = l.Close() // startup already failed; that error is the one to report
	}
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return h
}

func allowedHosts(c checked) []string {
	hosts := append([]string{}, c.AllowHosts...)
	if !isLoopbackHost(c.Host) && c.Host != "" && c.Host != "0.0.0.0" && c.Host != "::" {
		hosts = append(hosts, c.Host)
	}
	return hosts
}

func urlHost(h string) string {
	switch h {
	case "", "0.0.0.0", "::":
		return "127.0.0.1"
	}
	return h
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
