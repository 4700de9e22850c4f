// Package events writes and reads Agent DNS's event log: one JSON line per
// decision (every query, and every change a person makes), in
// <dir>/events.jsonl, rotated by size with old files kept beside it.
package events

import "time"

// FileName is the current log; rotated files are named
// events-<time>.jsonl beside it.
const FileName = "events.jsonl"

// Event names.
const (
	// Per query.
	NewQuery = "new_query" // first time the policy saw the name; allowed
	Query    = "query"     // allowed, seen before
	Held     = "held"      // held for a person (block address answered)
	Denied   = "denied"    // refused by a rule (block address answered), or a person denied it
	Refused  = "refused"   // no policy covers the client
	// Per change a person makes.
	Approved        = "approved"
	ModeChanged     = "mode"
	DefaultChanged  = "default"
	BaselineImport  = "baseline_import"
	ClientAdmin     = "admin"
	DecisionAllow   = "allow"
	DecisionHold    = "hold"
	DecisionDeny    = "deny"
	DecisionRefused = "refuse"
)

// Event is one record. Query events fill every field up to LatencyMs;
// a person's change fills Policy, Name (if any), Rule and Detail.
type Event struct {
	Time     time.Time `json:"time"`
	Event    string    `json:"event"`
	Policy   string    `json:"policy,omitempty"`
	Client   string    `json:"client,omitempty"`
	Listener string    `json:"listener,omitempty"`
	Name     string    `json:"name,omitempty"`
	Type     string    `json:"type,omitempty"`
	Decision string    `json:"decision,omitempty"`
	Rule     string    `json:"rule,omitempty"`
	Rcode    string    `json:"rcode,omitempty"`
	Answers  []string  `json:"answers,omitempty"`
	Cached   bool      `json:"cached,omitempty"`
	// LatencyMs is from the query's arrival to its answer being ready.
	LatencyMs float64 `json:"latency_ms,omitempty"`
	Detail    string  `json:"detail,omitempty"`
}

// Filter selects events; empty fields match everything.
type Filter struct {
	Event, Policy string
}

// Match reports whether e passes f.
func (f Filter) Match(e *Event) bool {
	return (f.Event == "" || e.Event == f.Event) && (f.Policy == "" || e.Policy == f.Policy)
}
