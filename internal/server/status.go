package server

import (
	"net/http"
	"os"
	goruntime "runtime"
	"strconv"
	"time"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, protocol.Health{OK: true, Protocol: protocol.Version, Version: s.cfg.Version})
	return nil
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) error {
	st := protocol.Status{
		Version:   s.cfg.Version,
		Protocol:  protocol.Version,
		Workspace: s.cfg.Workspace,
		Approval:  string(s.cfg.Mode),
		Runtime:   s.cfg.Runtime.Name(),
		Policy:    s.cfg.PolicySummary,
		Timeouts: protocol.Timeouts{Default: s.cfg.DefaultTimeout.Seconds(), Max: s.cfg.MaxTimeout.Seconds(),
			Approval: s.cfg.ApprovalTimeout.Seconds()},
		MaxOutput: s.cfg.MaxOutput,
		Audit:     s.auditSummary(),
		Daemon: protocol.DaemonInfo{
			PID:        os.Getpid(),
			Goroutines: goruntime.NumGoroutine(),
			Started:    s.cfg.Started.UTC().Format(time.RFC3339),
			Running:    s.running.len(),
		},
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) auditSummary() protocol.AuditSummary {
	if s.cfg.Audit == nil {
		return protocol.AuditSummary{}
	}
	sum := s.cfg.Audit.Summary()
	return protocol.AuditSummary{Enabled: true, Entries: sum.Entries, Head: sum.Head}
}

// Audit view limits: a default that fits a screen, a cap that keeps one
// response small.
const (
	defaultAuditLimit = 50
	maxAuditLimit     = 1000
)

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) error {
	limit := defaultAuditLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return &protocol.RequestError{Code: protocol.CodeBadRequest, Message: "limit must be a positive integer"}
		}
		limit = min(n, maxAuditLimit)
	}
	resp := protocol.AuditResponse{Records: []protocol.AuditRecord{}}
	if s.cfg.Audit != nil {
		recs, err := s.cfg.Audit.Recent(limit)
		if err != nil {
			return &apiError{status: http.StatusServiceUnavailable, code: protocol.CodeAuditUnavailable,
				msg: "the audit log cannot be read", cause: err}
		}
		sum := s.auditSummary()
		resp.Enabled, resp.Entries, resp.Head = true, sum.Entries, sum.Head
		for _, rec := range recs {
			resp.Records = append(resp.Records, rec.Wire())
		}
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}
