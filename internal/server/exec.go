package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"time"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/protocol"
	"github.com/sidecarhq/sidecar/internal/runtime"
	"github.com/sidecarhq/sidecar/internal/session"
)

var (
	errShutdown  = errors.New("the daemon is shutting down")
	errCancelled = errors.New("cancelled by POST /v1/cancel")
)

// handleExec is POST /v1/exec. Every step is one visible call: take a slot,
// decode, resolve the cwd, classify, ask if needed, audit the decision,
// run, persist the session, audit the result, respond.
func (s *Server) handleExec(w http.ResponseWriter, r *http.Request) error {
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default:
		return &apiError{status: http.StatusTooManyRequests, code: protocol.CodeTooManyRequests,
			msg:    fmt.Sprintf("%d commands are already in flight; retry when one finishes", cap(s.slots)),
			header: map[string]string{"Retry-After": "1"}}
	}
	body, err := readJSONBody(w, r, s.cfg.MaxBody)
	if err != nil {
		return err
	}
	req, err := protocol.DecodeExec(body)
	if err != nil {
		return err
	}
	if req.RequestID == "" {
		req.RequestID = newRequestID()
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	if !s.running.add(req.RequestID, cancel) {
		return &apiError{status: http.StatusConflict, code: protocol.CodeDuplicateRequest,
			msg: "a request with this request_id is already running"}
	}
	defer s.running.remove(req.RequestID)
	// Checked after registering, so BeginShutdown either sees this request
	// and cancels it, or this request sees the flag.
	if s.closing.Load() {
		return &apiError{status: http.StatusServiceUnavailable, code: protocol.CodeShuttingDown,
			msg: "the daemon is shutting down"}
	}

	resp, err := s.execute(ctx, req, r.RemoteAddr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// execute runs the pipeline for one decoded request.
func (s *Server) execute(ctx context.Context, req protocol.ExecRequest, client string) (protocol.ExecResponse, error) {
	start := s.cfg.Now()
	st, err := s.cfg.Sessions.Get(req.Session)
	if err != nil {
		return protocol.ExecResponse{}, fmt.Errorf("load session %q: %w", req.Session, err)
	}
	ex := &execution{req: req, client: client, start: start}

	cwd, err := s.resolveCwd(req.Cwd, st.Cwd)
	ex.cwd = cwd
	var cwdErr *cwdError
	switch {
	case errors.As(err, &cwdErr) && cwdErr.outside:
		return s.deny(ex, policy.ByWorkspace, "workspace/outside", cwdErr.Error(), runtime.ExitDenied)
	case errors.As(err, &cwdErr):
		return s.deny(ex, policy.ByWorkspace, "workspace/cwd-unusable", cwdErr.Error(), runtime.ExitCwdUnusable)
	case err != nil:
		return protocol.ExecResponse{}, err
	}

	verdict := s.cfg.Policy.Decide(req.Command, cwd)
	ex.rule = verdict.Rule
	switch verdict.Decision {
	case policy.Deny:
		return s.deny(ex, verdict.Approval, verdict.Rule, verdict.Reason, runtime.ExitDenied)
	case policy.Ask:
		// A grant (an earlier "always" for this exact command in this
		// session) answers here too, as approval "grant".
		answer := s.cfg.Approver.Ask(ctx, approval.Request{
			ID: req.RequestID, Client: client, Session: req.Session, Cwd: cwd,
			Command: req.Command, Why: verdict.Reason,
			Timeout: req.EffectiveTimeout(s.cfg.DefaultTimeout, s.cfg.MaxTimeout), At: start,
		})
		if answer.Err != nil {
			s.cfg.Logger.Warn("approval prompt", "request_id", req.RequestID, "approval", answer.Approval, "err", answer.Err)
		}
		if ctx.Err() != nil {
			return s.deny(ex, approval.ApprovalCancelled, "cancelled", cancelReason(ctx), runtime.ExitCancelled)
		}
		if !answer.Approved {
			return s.deny(ex, answer.Approval, verdict.Rule, answer.Reason, runtime.ExitDenied)
		}
		ex.approval = answer.Approval
		if answer.Granted {
			ex.note = "the person allowed this exact command for the rest of session " + req.Session
		}
	default:
		ex.approval = verdict.Approval
	}

	// The decision is on disk before the command starts, so a crash can
	// never hide a command that ran.
	if _, err := s.record(ex, audit.Record{Event: audit.EventDecision, Decision: "allow", Approval: ex.approval, Rule: ex.rule, Reason: ex.note}); err != nil {
		return protocol.ExecResponse{}, err
	}

	res, runErr := s.cfg.Runtime.Run(ctx, runtime.Request{
		ID:        req.RequestID,
		Command:   req.Command,
		Cwd:       cwd,
		Env:       session.Env(s.cfg.BaseEnv, st.Exports),
		Stdin:     stdinBytes(req.Stdin),
		Timeout:   req.EffectiveTimeout(s.cfg.DefaultTimeout, s.cfg.MaxTimeout),
		MaxOutput: s.cfg.MaxOutput,
	})
	if runErr != nil {
		// Cancelled between the decision record and the start (the
		// client went away during the fsync, say): the runtime started
		// nothing, and the answer says why, as for a cancel before
		// approval.
		cancelWhy := ""
		if ctx.Err() != nil {
			cancelWhy = cancelReason(ctx)
		}
		return s.startFailed(ex, runErr, cancelWhy)
	}
	next := s.persist(req.Session, st, res, cwd)
	return s.finish(ex, res, next, cancelReason(ctx))
}

// execution carries one request through the pipeline.
type execution struct {
	req      protocol.ExecRequest
	client   string
	start    time.Time
	cwd      string
	approval string
	rule     string
	note     string // for the audit: the grant an "always" answer recorded
}

// deny answers a command that will not run: one audit record, exit code
// 125 (or 126/130), and words the agent can act on.
func (s *Server) deny(ex *execution, how, rule, reason string, exit int) (protocol.ExecResponse, error) {
	rec, err := s.record(ex, audit.Record{Event: audit.EventDecision, Decision: "deny", Approval: how, Rule: rule, Reason: reason, ExitCode: &exit})
	if err != nil {
		return protocol.ExecResponse{}, err
	}
	out := "Sidecar denied this command: " + reason + "\n" +
		"Do not retry it verbatim: change the approach, or ask the person to allow it.\n"
	if exit == runtime.ExitCwdUnusable {
		out = "Sidecar could not use the working directory: " + reason + "\n"
	}
	if exit == runtime.ExitCancelled {
		out = "Sidecar cancelled this command before it ran: " + reason + "\n"
	}
	cwd := ex.cwd
	if cwd == "" {
		cwd = s.cfg.Workspace
	}
	return protocol.ExecResponse{
		RequestID: ex.req.RequestID, ExitCode: exit, Output: out, Cwd: cwd,
		Decision: "deny", Approval: how, Rule: rule, Reason: reason,
		DurationMs: s.cfg.Now().Sub(ex.start).Milliseconds(), Audit: rec,
	}, nil
}

// startFailed answers a command that was allowed but did not start: it
// could not, or, with cancelWhy set, it was cancelled first.
func (s *Server) startFailed(ex *execution, runErr error, cancelWhy string) (protocol.ExecResponse, error) {
	exit := 1
	msg := "Sidecar could not start the command"
	switch {
	case cancelWhy != "":
		exit = runtime.ExitCancelled
		msg = "Sidecar cancelled this command before it ran: " + cancelWhy
	case errors.Is(runErr, runtime.ErrCwdUnusable):
		exit = runtime.ExitCwdUnusable
		msg = "Sidecar could not enter the working directory " + ex.cwd
	}
	s.cfg.Logger.Warn("command did not start", "request_id", ex.req.RequestID, "err", runErr)
	zero := int64(0)
	f := false
	rec, _ := s.record(ex, audit.Record{Event: audit.EventResult, Decision: "allow", Approval: ex.approval, Rule: ex.rule,
		Reason: msg, ExitCode: &exit, OutputBytes: &zero, Truncated: &f})
	return protocol.ExecResponse{
		RequestID: ex.req.RequestID, ExitCode: exit, Output: msg + "\n", Cwd: ex.cwd,
		Decision: "allow", Approval: ex.approval, Rule: ex.rule,
		DurationMs: s.cfg.Now().Sub(ex.start).Milliseconds(), Audit: rec,
	}, nil
}

// finish turns a runtime result into the response and its audit record.
// next is where the session's next command starts.
func (s *Server) finish(ex *execution, res runtime.Result, next, cancelWhy string) (protocol.ExecResponse, error) {
	output := string(res.Output)
	if res.Truncated() {
		output += fmt.Sprintf("\n[OUTPUT TRUNCATED: %d bytes omitted]\n", res.OmittedBytes)
	}
	timeout := ex.req.EffectiveTimeout(s.cfg.DefaultTimeout, s.cfg.MaxTimeout)
	switch {
	case res.TimedOut:
		output += fmt.Sprintf("\n[Sidecar: timed out after %s; the command's process group was killed]\n", timeout)
	case res.Cancelled:
		output += "\n[Sidecar: " + cancelWhy + "; the command's process group was killed]\n"
	}
	if res.Cwd != "" && res.Cwd != next {
		output += "\n[Sidecar: the command ended in " + res.Cwd + ", outside the workspace; the next command starts in " + next + "]\n"
	}
	size := int64(len(res.Output)) + res.OmittedBytes
	truncated := res.Truncated()
	dur := res.Duration.Milliseconds()
	rec, err := s.record(ex, audit.Record{Event: audit.EventResult, Decision: "allow", Approval: ex.approval, Rule: ex.rule,
		ExitCode: &res.ExitCode, DurationMs: &dur, OutputBytes: &size, Truncated: &truncated})
	if err != nil {
		// The command has run and its decision is on record; losing the
		// result record must not also lose the output.
		s.cfg.Logger.Error("audit result record", "request_id", ex.req.RequestID, "err", err)
	}
	return protocol.ExecResponse{
		RequestID: ex.req.RequestID, ExitCode: res.ExitCode, Output: output, Truncated: truncated,
		TimedOut: res.TimedOut, Cancelled: res.Cancelled,
		Cwd: next, Decision: "allow", Approval: ex.approval, Rule: ex.rule,
		DurationMs: dur, Audit: rec,
	}, nil
}

// persist keeps the cwd the command ended in (or, when that is outside the
// boundary or unknown, the one it started in) and the exports that may
// carry over. It returns the directory
// the session's next command starts in: what the response reports as cwd,
// so a client that sends it back is never refused for it.
func (s *Server) persist(name string, st session.State, res runtime.Result, started string) string {
	next := started
	if res.Cwd != "" && (s.cfg.AllowOutsideWorkspace || within(s.cfg.Workspace, res.Cwd)) {
		next = res.Cwd
	}
	changed := next != st.Cwd
	st.Cwd = next
	if res.Exports != nil {
		if exports := session.FilterExports(res.Exports); !maps.Equal(exports, st.Exports) {
			st.Exports, changed = exports, true
		}
	}
	// An unchanged session is not rewritten: each write is two fsyncs on
	// the path of every command.
	if changed {
		if err := s.cfg.Sessions.Put(name, st); err != nil {
			s.cfg.Logger.Error("persist session", "session", name, "err", err)
		}
	}
	return next
}

// record appends one audit record for ex; with auditing off it returns nil.
// A decision that cannot be recorded is not carried out.
func (s *Server) record(ex *execution, rec audit.Record) (*protocol.AuditRef, error) {
	if s.cfg.Audit == nil {
		return nil, nil
	}
	rec.RequestID, rec.Session, rec.Client = ex.req.RequestID, ex.req.Session, ex.client
	rec.Command, rec.Cwd = ex.req.Command, ex.cwd
	out, err := s.cfg.Audit.Append(rec)
	if err != nil {
		return nil, &apiError{status: http.StatusServiceUnavailable, code: protocol.CodeAuditUnavailable,
			msg: "the audit log cannot be written, so nothing runs; the person must check the daemon", cause: err}
	}
	return &protocol.AuditRef{Seq: out.Seq, Hash: out.Hash}, nil
}

func cancelReason(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelled):
		return "cancelled by request"
	case errors.Is(cause, errShutdown):
		return "the daemon is shutting down"
	default:
		return "the client went away"
	}
}

func stdinBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

// readJSONBody reads a capped JSON body; over the cap is a 413.
func readJSONBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, &apiError{status: http.StatusUnsupportedMediaType, code: protocol.CodeUnsupportedMedia,
				msg: "Content-Type must be application/json"}
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &apiError{status: http.StatusRequestEntityTooLarge, code: protocol.CodeBodyTooLarge,
			msg: fmt.Sprintf("request body is larger than %d bytes", max)}
	case err != nil:
		return nil, &apiError{status: http.StatusBadRequest, code: protocol.CodeBadRequest, msg: "could not read the request body", cause: err}
	}
	return body, nil
}

func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return "req-" + hex.EncodeToString(b)
}
