package agentdns

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/events"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// AddressSink learns the addresses answered for names that resolved under
// an enforce-mode policy, before the answer is sent, so a firewall set can
// hold them by the time the client connects. Add must be safe for
// concurrent use; an error fails the query (SERVFAIL) rather than let the
// client learn an address the firewall will not pass.
type AddressSink interface {
	Add(ctx context.Context, policy string, addrs []netip.Addr) error
}

// policyStage picks the client's policy, decides, answers held and denied
// names itself, and records every outcome in the inventory.
type policyStage struct {
	set  *policies
	inv  *inventory.Store
	sink AddressSink
}

func (*policyStage) Name() string { return "policy" }

func (s *policyStage) ServeDNS(ctx context.Context, q *Query, next Next) (*dns.Msg, error) {
	st := s.set.selectFor(q.Listener, q.Client.Addr())
	if st == nil {
		q.Event, q.Verdict, q.Rule, q.EDE = events.Refused, policy.Refuse, "no_policy", noPolicyEDE()
		m := new(dns.Msg)
		m.SetRcode(q.Req, dns.RcodeRefused)
		return m, nil
	}
	p := st.cur.Load()
	status, decided, _ := s.inv.Lookup(p.Name, q.Name)
	d := p.Decide(q.Name, standing(status, decided))
	q.Policy, q.Verdict, q.Rule = p.Name, d.Verdict, d.Rule
	obs := inventory.Observation{Time: q.Start, Rule: d.Rule, Type: typeName(q.Type)}

	switch d.Verdict {
	case policy.Hold:
		obs.Status = inventory.Held
		s.inv.Observe(p.Name, q.Name, obs)
		q.Event, q.EDE = events.Held, heldEDE(q.Name, p.Name)
		return blockAnswer(q, st.block), nil
	case policy.Refuse:
		obs.Status = inventory.Denied
		s.inv.Observe(p.Name, q.Name, obs)
		q.Event, q.EDE = events.Denied, deniedEDE(q.Name, p.Name, d.Rule)
		return blockAnswer(q, st.block), nil
	}

	m, err := next(ctx, q)
	if err != nil {
		return nil, err
	}
	obs.Addresses = answerAddrs(m)
	if s.sink != nil && p.Mode == policy.Enforce && len(obs.Addresses) > 0 {
		if err := s.sink.Add(ctx, p.Name, obs.Addresses); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSink, err)
		}
	}
	obs.Status = inventory.Learned
	if d.Rule == policy.RulePersonApproved || strings.HasPrefix(d.Rule, "allow:") || strings.HasPrefix(d.Rule, "template:") {
		obs.Status = inventory.Approved
	}
	q.Event = events.Query
	if s.inv.Observe(p.Name, q.Name, obs) {
		q.Event = events.NewQuery
	}
	return m, nil
}

// standing maps the inventory's view of a name to the policy's.
func standing(st inventory.Status, decided bool) policy.Standing {
	switch {
	case decided && st == inventory.Approved:
		return policy.Approved
	case decided && st == inventory.Denied:
		return policy.Denied
	case st == inventory.Learned:
		return policy.Learned
	case st == inventory.Held:
		return policy.Held
	}
	return policy.Unknown
}

// answerAddrs returns the A and AAAA addresses in m's answer section.
func answerAddrs(m *dns.Msg) []netip.Addr {
	var out []netip.Addr
	for _, rr := range m.Answer {
		var a netip.Addr
		switch r := rr.(type) {
		case *dns.A:
			a, _ = netip.AddrFromSlice(r.A.To4())
		case *dns.AAAA:
			a, _ = netip.AddrFromSlice(r.AAAA.To16())
		default:
			continue
		}
		if a.IsValid() {
			out = append(out, a)
		}
	}
	return out
}

func typeName(t uint16) string {
	if s, ok := dns.TypeToString[t]; ok {
		return s
	}
	return "TYPE" + strconv.Itoa(int(t))
}
