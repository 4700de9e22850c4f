// Package config reads and validates Agent DNS's dns.yaml: listeners,
// upstreams, cache and event-log limits, and the named policies. Every
// problem is reported with the file, line and column it is on, all of them
// at once, so a person can fix the file in one pass.
package config

import (
	"net/netip"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// Defaults for fields a file leaves out.
const (
	DefaultListen     = "127.0.0.1:8753"
	DefaultHoldTTL    = 5
	MaxHoldTTL        = 3600
	DefaultCacheSize  = 10000
	DefaultCacheMaxTT = 3600
	DefaultEventsMB   = 50
	DefaultBackups    = 10
	DefaultTimeout    = 2 * time.Second
)

// Config is a validated dns.yaml.
type Config struct {
	// File is the path it was read from, for messages.
	File      string
	Listeners []Listener
	Upstreams []Upstream
	Cache     Cache
	Events    Events
	// Policies in file order: a query takes the first policy whose
	// clients match it; a query no policy matches is refused.
	Policies []Policy
}

// Listener is one address the resolver serves on, over UDP and TCP.
type Listener struct {
	Name    string
	Address netip.AddrPort
	// Line and Column are where it is written, for messages.
	Line, Column int
}

// Upstream is a resolver allowed queries are forwarded to, tried in order.
type Upstream struct {
	Address netip.AddrPort
	// TLS selects DNS over TLS (RFC 7858); ServerName is the name its
	// certificate must carry.
	TLS        bool
	ServerName string
	Timeout    time.Duration
}

// Cache bounds the answer cache.
type Cache struct {
	MaxEntries int
	// MaxTTL caps how long an answer is kept, whatever its TTL says.
	MaxTTL time.Duration
}

// Events bounds the JSONL event log: rotate at MaxSizeMB, keep
// MaxBackups old files for at most MaxAgeDays (0: no age limit).
type Events struct {
	MaxSizeMB, MaxBackups, MaxAgeDays int
}

// Policy is one named policy as written; see policy.Policy.Decide for the
// order its rules apply in.
type Policy struct {
	Name          string
	Clients       policy.Clients
	Mode          policy.Mode
	Default       policy.Action
	HoldFirstSeen bool
	// BlockV4 and BlockV6 answer A and AAAA queries for held and denied
	// names; an invalid (zero) address means NODATA for that type.
	BlockV4, BlockV6 netip.Addr
	// HoldTTL is the TTL, in seconds, of held and denied answers: short, so
	// an approval takes effect soon.
	HoldTTL uint32
	// Allow and Deny are name patterns ("a.example", "*.example").
	Allow, Deny []string
	// Templates are references to shipped templates ("openai", "openai@1").
	Templates []string
	// Line and Column are where it is written, for messages.
	Line, Column int
}
