// Package inventory keeps Agent DNS's record of every name each policy has
// seen: its status (learned, approved, held, denied), when it was first and
// last seen, how often, for which query types and which addresses were
// answered. It lives in memory for the query path and is persisted
// crash-safely as a snapshot plus an append-only journal (see Store).
package inventory

import (
	"fmt"
	"net/netip"
	"time"
)

// Status is where a name stands.
type Status string

// Statuses.
const (
	Learned  Status = "learned"
	Approved Status = "approved"
	Held     Status = "held"
	Denied   Status = "denied"
)

// ParseStatus returns the Status named s.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case Learned, Approved, Held, Denied:
		return st, nil
	}
	return "", fmt.Errorf("status %q: want learned, approved, held or denied", s)
}

// Limits on what one entry remembers, so a name answered with ever-changing
// addresses cannot grow without bound.
const (
	MaxTypes     = 16
	MaxAddresses = 32
)

// Entry is one name under one policy.
type Entry struct {
	Policy string `json:"policy"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Decided reports that a person set Status (approve, deny, baseline
	// import). Only decided statuses bind later decisions; otherwise Status
	// is the outcome of the name's most recent query.
	Decided   bool         `json:"decided,omitempty"`
	Rule      string       `json:"rule,omitempty"`
	FirstSeen time.Time    `json:"first_seen"`
	LastSeen  time.Time    `json:"last_seen"`
	Count     uint64       `json:"count"`
	Types     []string     `json:"types,omitempty"`
	Addresses []netip.Addr `json:"addresses,omitempty"`
}

// Observation is one query's outcome for a name.
type Observation struct {
	Time time.Time
	// Status is the outcome: Learned (allowed), Approved (allowed by a
	// list), Held or Denied. It replaces the entry's status unless a person
	// decided that.
	Status Status
	Rule   string
	// Type is the query type ("A", "AAAA", ...).
	Type string
	// Addresses are the A and AAAA addresses answered.
	Addresses []netip.Addr
}
