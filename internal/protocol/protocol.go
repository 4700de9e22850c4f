// Package protocol holds the wire types of Sidecar protocol version 2 and
// the strict decoder the daemon applies to every request body. Both the
// daemon and the Go clients (CLI verbs, demo, verify) use these types, so a
// field can only change in one place.
package protocol

// Version is the protocol version this build speaks.
const Version = 2

// Error codes a client can branch on. The message beside a code is for a
// person; the code is for a program.
const (
	CodeBadRequest       = "bad_request"
	CodeInvalidJSON      = "invalid_json"
	CodeUnknownField     = "unknown_field"
	CodeDuplicateField   = "duplicate_field"
	CodeProtocolV1       = "protocol_v1_rejected"
	CodeInvalidCommand   = "invalid_command"
	CodeInvalidCwd       = "invalid_cwd"
	CodeInvalidTimeout   = "invalid_timeout"
	CodeInvalidSession   = "invalid_session"
	CodeInvalidRequestID = "invalid_request_id"
	CodeInvalidUTF8      = "invalid_utf8"
	CodeBodyTooLarge     = "body_too_large"
	CodeUnauthorized     = "unauthorized"
	CodeOriginRefused    = "origin_refused"
	CodeHostRefused      = "host_refused"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeTooManyRequests  = "too_many_requests"
	CodeTooManyAuthFails = "too_many_auth_failures"
	CodeUnknownRequest   = "unknown_request"
	CodeDuplicateRequest = "duplicate_request_id"
	CodeAuditUnavailable = "audit_unavailable"
	CodeShuttingDown     = "shutting_down"
	CodeInternal         = "internal_error"
)

// ErrorBody is the body of every non-2xx answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names what went wrong.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Health is the answer of GET /v1/health.
type Health struct {
	OK       bool   `json:"ok"`
	Protocol int    `json:"protocol"`
	Version  string `json:"version"`
}

// AuditRef points at the audit record of a result.
type AuditRef struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// ExecResponse is the answer of POST /v1/exec, for a command that ran and
// for one that was denied alike.
type ExecResponse struct {
	RequestID  string    `json:"request_id"`
	ExitCode   int       `json:"exit_code"`
	Output     string    `json:"output"`
	Truncated  bool      `json:"truncated"`
	TimedOut   bool      `json:"timed_out"`
	Cancelled  bool      `json:"cancelled"`
	Cwd        string    `json:"cwd"`
	Decision   string    `json:"decision"`
	Approval   string    `json:"approval"`
	Rule       string    `json:"rule,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	DurationMs int64     `json:"duration_ms"`
	Audit      *AuditRef `json:"audit"`
}

// CancelRequest is the body of POST /v1/cancel.
type CancelRequest struct {
	RequestID string `json:"request_id"`
}

// CancelResponse is the answer of POST /v1/cancel.
type CancelResponse struct {
	RequestID string `json:"request_id"`
	Cancelled bool   `json:"cancelled"`
}

// Status is the answer of GET /v1/status.
type Status struct {
	Version   string        `json:"version"`
	Protocol  int           `json:"protocol"`
	Workspace string        `json:"workspace"`
	Approval  string        `json:"approval"`
	Runtime   string        `json:"runtime"`
	Policy    PolicySummary `json:"policy"`
	Timeouts  Timeouts      `json:"timeouts"`
	MaxOutput int           `json:"max_output"`
	Audit     AuditSummary  `json:"audit"`
	Daemon    DaemonInfo    `json:"daemon"`
}

// PolicySummary is what the remote side may know of the local policy. It
// is read-only: no endpoint changes it.
type PolicySummary struct {
	Mode                  string   `json:"mode"`
	HardDeny              []string `json:"hard_deny"`
	SafeCommands          []string `json:"safe_commands"`
	AllowRules            int      `json:"allow_rules"`
	DenyRules             int      `json:"deny_rules"`
	AllowOutsideWorkspace bool     `json:"allow_outside_workspace"`
	// PolicyFile is the local policy file in effect ("" for none), and
	// ExtraSafeCommands and SensitivePaths what it adds.
	PolicyFile        string   `json:"policy_file,omitempty"`
	ExtraSafeCommands []string `json:"extra_safe_commands"`
	SensitivePaths    int      `json:"sensitive_paths"`
}

// Timeouts are in seconds. Approval is how long a prompt waits for a
// person, so a client can wait long enough for an answer.
type Timeouts struct {
	Default  float64 `json:"default"`
	Max      float64 `json:"max"`
	Approval float64 `json:"approval"`
}

// AuditSummary describes the local audit log.
type AuditSummary struct {
	Enabled bool   `json:"enabled"`
	Entries uint64 `json:"entries"`
	Head    string `json:"head"`
}

// DaemonInfo lets a person (and the benchmark) see the daemon's footprint.
type DaemonInfo struct {
	PID        int    `json:"pid"`
	Goroutines int    `json:"goroutines"`
	Started    string `json:"started"`
	Running    int    `json:"running"`
}

// AuditRecord is one record as GET /v1/audit shows it: metadata only.
type AuditRecord struct {
	Seq         uint64 `json:"seq"`
	Time        string `json:"time"`
	Event       string `json:"event"`
	RequestID   string `json:"request_id"`
	Session     string `json:"session"`
	Client      string `json:"client"`
	Command     string `json:"command"`
	Cwd         string `json:"cwd"`
	Decision    string `json:"decision"`
	Approval    string `json:"approval"`
	Rule        string `json:"rule,omitempty"`
	Reason      string `json:"reason,omitempty"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	DurationMs  *int64 `json:"duration_ms,omitempty"`
	OutputBytes *int64 `json:"output_bytes,omitempty"`
	Truncated   *bool  `json:"truncated,omitempty"`
	Prev        string `json:"prev"`
	Hash        string `json:"hash"`
}

// AuditResponse is the answer of GET /v1/audit.
type AuditResponse struct {
	Enabled bool          `json:"enabled"`
	Entries uint64        `json:"entries"`
	Head    string        `json:"head"`
	Records []AuditRecord `json:"records"`
}
