// Package server is the daemon's HTTP front door and the exec pipeline
// behind it: authenticate, decode, classify, ask, run, audit, respond.
// It owns no lifecycle: the daemon package listens, serves and shuts down.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/protocol"
	"github.com/sidecarhq/sidecar/internal/runtime"
	"github.com/sidecarhq/sidecar/internal/session"
	"github.com/sidecarhq/sidecar/internal/token"
)

// Classifier decides on one command string.
type Classifier interface {
	Decide(command, cwd string) policy.Verdict
}

// Approver asks a person.
type Approver interface {
	Ask(ctx context.Context, req approval.Request) approval.Answer
}

// AuditLog records decisions. A nil AuditLog means --no-audit.
type AuditLog interface {
	Append(r audit.Record) (audit.Record, error)
	Recent(n int) ([]audit.Record, error)
	Summary() audit.Summary
}

// SessionStore keeps per-session cwd and exports.
type SessionStore interface {
	Get(name string) (session.State, error)
	Put(name string, st session.State) error
}

// Config is everything the server needs; the daemon builds it from flags.
type Config struct {
	Version               string
	Token                 token.Token
	Workspace             string // absolute, symlink-resolved
	AllowOutsideWorkspace bool
	Mode                  policy.Mode
	PolicySummary         protocol.PolicySummary
	DefaultTimeout        time.Duration
	MaxTimeout            time.Duration
	ApprovalTimeout       time.Duration // how long a prompt waits; reported in /v1/status
	MaxOutput             int
	MaxBody               int64
	MaxConcurrent         int      // exec requests in flight at once, prompts included
	AllowedHosts          []string // Host header values accepted besides loopback names
	Policy                Classifier
	Approver              Approver
	Audit                 AuditLog // nil: auditing off
	Runtime               runtime.Runtime
	Sessions              SessionStore
	BaseEnv               []string
	Logger                *slog.Logger
	Now                   func() time.Time
	Started               time.Time
}

// Server handles protocol-2 requests. Create it with New; it is safe for
// concurrent use.
type Server struct {
	cfg       Config
	running   *inflight
	slots     chan struct{}
	authFails *rate.Limiter
	hosts     hostSet
	closing   atomic.Bool
}

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("server config")

// New checks cfg and returns a Server. port is the port actually bound, for
// the Host check.
func New(cfg Config, port int) (*Server, error) {
	switch {
	case cfg.Policy == nil, cfg.Approver == nil, cfg.Runtime == nil, cfg.Sessions == nil:
		return nil, errors.Join(ErrConfig, errors.New("policy, approver, runtime and sessions are required"))
	case cfg.Workspace == "":
		return nil, errors.Join(ErrConfig, errors.New("workspace is required"))
	case cfg.DefaultTimeout <= 0 || cfg.MaxTimeout <= 0:
		return nil, errors.Join(ErrConfig, errors.New("timeouts must be positive"))
	case cfg.MaxOutput <= 0 || cfg.MaxBody <= 0 || cfg.MaxConcurrent <= 0:
		return nil, errors.Join(ErrConfig, errors.New("limits must be positive"))
	}
	if cfg.DefaultTimeout > cfg.MaxTimeout {
		cfg.DefaultTimeout = cfg.MaxTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Server{
		cfg:     cfg,
		running: newInflight(),
		slots:   make(chan struct{}, cfg.MaxConcurrent),
		// A wrong token may be a typo; a stream of them is a guess. Past a
		// short burst, failures are refused without even comparing.
		authFails: rate.NewLimiter(rate.Limit(5), 10),
		hosts:     newHostSet(port, cfg.AllowedHosts),
	}, nil
}

// Handler returns the whole HTTP surface: the front door, then the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	allowed := map[string][]string{} // path -> methods, for 405 answers
	for _, r := range s.routes() {
		mux.Handle(r.pattern, s.adapt(r.handle))
		method, path, _ := strings.Cut(r.pattern, " ")
		allowed[path] = append(allowed[path], method)
	}
	for path, methods := range allowed {
		allow := strings.Join(methods, ", ")
		mux.Handle(path, s.adapt(func(w http.ResponseWriter, r *http.Request) error {
			return &apiError{status: http.StatusMethodNotAllowed, code: protocol.CodeMethodNotAllowed,
				msg: r.Method + " is not allowed on " + path + "; use " + allow, header: map[string]string{"Allow": allow}}
		}))
	}
	mux.Handle("/", s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		return &apiError{status: http.StatusNotFound, code: protocol.CodeNotFound, msg: "no such endpoint: " + r.URL.Path}
	}))
	return s.frontDoor(mux)
}

type route struct {
	pattern string
	handle  handlerFunc
}

// routes is the whole API in one table.
func (s *Server) routes() []route {
	return []route{
		{"GET /v1/health", s.handleHealth},
		{"GET /v1/status", s.handleStatus},
		{"POST /v1/exec", s.handleExec},
		{"POST /v1/cancel", s.handleCancel},
		{"GET /v1/audit", s.handleAudit},
	}
}

// BeginShutdown refuses new commands and kills every running one; their
// requests answer exit 130. The caller then shuts the HTTP server down.
func (s *Server) BeginShutdown() {
	s.closing.Store(true)
	s.running.cancelAll()
}

// Running reports how many exec requests are in flight.
func (s *Server) Running() int { return s.running.len() }
