package agentdns

import (
	"net/netip"
	"time"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// Query is one query on its way through the chain. Stages read the
// request fields and fill in the outcome fields for the stages before
// them (log reads them after the answer).
type Query struct {
	// Req is the request as received; stages must not change it.
	Req *dns.Msg
	// Name is the question's name, normalized (lower case, no root dot);
	// Type its type.
	Name string
	Type uint16
	// Client is where the query came from; Listener names the listener it
	// arrived on; TCP reports the transport.
	Client   netip.AddrPort
	Listener string
	TCP      bool
	Start    time.Time

	// Outcome, filled in by stages.
	Policy  string
	Verdict policy.Verdict
	Rule    string
	Event   string
	Cached  bool
	// EDE is the Extended DNS Error to attach to the answer, if any.
	EDE *dns.EDNS0_EDE

	// reached is the index of the deepest stage the query entered.
	reached int
}
