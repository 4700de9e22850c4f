// Package admin is Agent DNS's local management interface: JSON over HTTP
// on a Unix socket (mode 0600 inside the 0700 state directory, so only its
// owner can reach it). Changes take effect in the running resolver at once.
// The server side adapts a Control; Client is what the CLI uses.
package admin

import (
	"errors"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

// SocketName is the socket's file name in the state directory.
const SocketName = "admin.sock"

// Errors a Control returns (wrapped) to choose the HTTP status.
var (
	// ErrNotFound: no such policy (404).
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the request is wrong (400).
	ErrInvalid = errors.New("invalid request")
)

// Control is what the admin interface can do to a running resolver. Every
// method is safe for concurrent use; a change is durable before it
// returns.
type Control interface {
	Status() Status
	Inventory(f inventory.Filter) ([]inventory.Entry, error)
	Approve(policy, name string) (inventory.Entry, error)
	Deny(policy, name string) (inventory.Entry, error)
	SetMode(policy, mode string) (Policy, error)
	SetDefault(policy, action string) (Policy, error)
	ExportBaseline(policy string) (Baseline, error)
	ImportBaseline(policy string, b Baseline) (Imported, error)
}

// Status describes the running resolver.
type Status struct {
	Listeners []Listener `json:"listeners"`
	Policies  []Policy   `json:"policies"`
	Inventory int        `json:"inventory"`
	Stages    []Stage    `json:"stages"`
}

// Listener is one address served.
type Listener struct {
	Name string `json:"name"`
	UDP  string `json:"udp"`
	TCP  string `json:"tcp"`
}

// Policy is one policy's current settings.
type Policy struct {
	Name          string   `json:"name"`
	Mode          string   `json:"mode"`
	Default       string   `json:"default_action"`
	HoldFirstSeen bool     `json:"hold_first_seen"`
	HoldTTL       uint32   `json:"hold_ttl"`
	BlockAddress  []string `json:"block_address"`
	AllowPatterns int      `json:"allow_patterns"`
	DenyPatterns  int      `json:"deny_patterns"`
}

// Stage is one chain stage's counters.
type Stage struct {
	Name     string `json:"name"`
	Queries  uint64 `json:"queries"`
	Answered uint64 `json:"answered"`
	Errors   uint64 `json:"errors"`
}

// BaselineVersion is the baseline file format version.
const BaselineVersion = 1

// Baseline is a policy's reviewed names, to carry to another policy or
// machine: export from one, import into another.
type Baseline struct {
	Version  int                  `json:"version"`
	Policy   string               `json:"policy"`
	Exported time.Time            `json:"exported"`
	Names    []inventory.Decision `json:"names"`
}

// Imported reports what an import did.
type Imported struct {
	Approved int `json:"approved"`
	Denied   int `json:"denied"`
}

// Request bodies.
type (
	nameRequest struct {
		Policy string `json:"policy"`
		Name   string `json:"name"`
	}
	modeRequest struct {
		Policy string `json:"policy"`
		Mode   string `json:"mode"`
	}
	defaultRequest struct {
		Policy string `json:"policy"`
		Action string `json:"action"`
	}
	importRequest struct {
		Policy   string   `json:"policy"`
		Baseline Baseline `json:"baseline"`
	}
	errorBody struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
)
