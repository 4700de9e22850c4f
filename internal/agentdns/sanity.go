package agentdns

import (
	"context"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// EventRejected names the event of a query the sanity stage answered.
const EventRejected = "rejected"

// sanityStage answers what is not one plain question in class IN: other
// opcodes get NOTIMP, zero or several questions FORMERR, other classes and
// zone transfers REFUSED. Nothing it answers goes further.
type sanityStage struct{}

func (sanityStage) Name() string { return "sanity" }

func (sanityStage) ServeDNS(ctx context.Context, q *Query, next Next) (*dns.Msg, error) {
	rcode := dns.RcodeSuccess
	switch {
	case q.Req.Opcode != dns.OpcodeQuery:
		rcode = dns.RcodeNotImplemented
	case len(q.Req.Question) != 1:
		rcode = dns.RcodeFormatError
	case q.Req.Question[0].Qclass != dns.ClassINET,
		q.Type == dns.TypeAXFR, q.Type == dns.TypeIXFR, q.Type == dns.TypeOPT:
		rcode = dns.RcodeRefused
	}
	if rcode == dns.RcodeSuccess {
		return next(ctx, q)
	}
	q.Event, q.Verdict, q.Rule = EventRejected, policy.Refuse, "sanity"
	m := new(dns.Msg)
	m.SetRcode(q.Req, rcode)
	return m, nil
}
