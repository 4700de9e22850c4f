package audit

import (
	"time"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// Wire is r as GET /v1/audit and `sidecar log` show it. A stored record
// already holds no output and a redacted command, so nothing is dropped.
func (r Record) Wire() protocol.AuditRecord {
	return protocol.AuditRecord{
		Seq: r.Seq, Time: r.Time.UTC().Format(time.RFC3339Nano), Event: r.Event,
		RequestID: r.RequestID, Session: r.Session, Client: r.Client, Command: r.Command, Cwd: r.Cwd,
		Decision: r.Decision, Approval: r.Approval, Rule: r.Rule, Reason: r.Reason,
		ExitCode: r.ExitCode, DurationMs: r.DurationMs, OutputBytes: r.OutputBytes, Truncated: r.Truncated,
		Prev: r.Prev, Hash: r.Hash,
	}
}
