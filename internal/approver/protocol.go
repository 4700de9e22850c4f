package approver

import (
	"time"

	"github.com/sidecarhq/sidecar/internal/approval"
)

// Version is the approver protocol version the hello message carries.
const Version = 1

// Message types. The daemon sends hello once, then a pending message for
// every request waiting at that moment (oldest first), then pending and
// resolved messages as requests come and go; it answers each answer with
// answered or error, and each list with list. The approver sends answer
// and list.
const (
	TypeHello    = "hello"    // daemon: who it is
	TypePending  = "pending"  // daemon: a request waits for an answer
	TypeResolved = "resolved" // daemon: a request no longer waits (answered here or elsewhere, or gone)
	TypeAnswered = "answered" // daemon: your answer was taken
	TypeError    = "error"    // daemon: your message was refused
	TypeList     = "list"     // either: ask for, or give, every pending request
	TypeAnswer   = "answer"   // approver: the person's answer to one request
)

// Message is one line of the protocol. Type says which fields are set.
type Message struct {
	Type string `json:"type"`

	// hello
	Version   int    `json:"version,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Workspace string `json:"workspace,omitempty"`

	// pending
	Request *Pending `json:"request,omitempty"`
	// list
	Requests []Pending `json:"requests,omitempty"`

	// resolved, answered, error, answer
	ID uint64 `json:"id,omitempty"`
	// resolved: "approved", "denied" or "withdrawn"; Why says by whom or why.
	Outcome string `json:"outcome,omitempty"`
	Why     string `json:"why,omitempty"`

	// answer
	Choice approval.Choice `json:"choice,omitempty"`
	Reason string          `json:"reason,omitempty"`

	// error
	Message string `json:"message,omitempty"`
}

// Pending is a request waiting for an answer, as an approver sees it.
type Pending struct {
	ID        uint64    `json:"id"` // the daemon's number for it; answers name it
	RequestID string    `json:"request_id"`
	Client    string    `json:"client"`
	Session   string    `json:"session"`
	Cwd       string    `json:"cwd"`
	Command   string    `json:"command"`
	Why       string    `json:"why"`
	TimeoutMS int64     `json:"timeout_ms"`
	Received  time.Time `json:"received"`
	AgeMS     int64     `json:"age_ms"` // at the time the message was sent
}

// ApprovalRequest is p as the approval package shows it at a prompt.
func (p Pending) ApprovalRequest() approval.Request {
	return approval.Request{
		ID: p.RequestID, Client: p.Client, Session: p.Session, Cwd: p.Cwd, Command: p.Command,
		Why: p.Why, Timeout: time.Duration(p.TimeoutMS) * time.Millisecond, At: p.Received,
	}
}

// Outcomes of a resolved message.
const (
	OutcomeApproved  = "approved"
	OutcomeDenied    = "denied"
	OutcomeWithdrawn = "withdrawn"
)
