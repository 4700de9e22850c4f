package agentdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// Check outcomes.
const (
	Pass = "PASS"
	Fail = "FAIL"
	Skip = "SKIP"
)

// CheckResult is one verify check.
type CheckResult struct {
	Name   string
	Status string
	Detail string
}

// VerifyOptions say what to check, from where Verify runs: it must run as
// (or in the namespace of) the fenced client.
type VerifyOptions struct {
	// Resolver is the Agent DNS listener the client uses.
	Resolver netip.AddrPort
	// Outside is a resolver the client must not reach; zero skips that
	// check.
	Outside netip.AddrPort
	// Approved is a name that must resolve; empty skips that check.
	Approved string
	// Block are the block addresses held names may be answered with.
	Block []netip.Addr
	// Timeout bounds each query (default 2 s): a dropped query to Outside
	// takes this long.
	Timeout time.Duration
	Now     func() time.Time
}

// Verify runs the three checks: a fresh first-seen name gets the block
// address, a query to an outside resolver is dropped, an approved name
// resolves.
func Verify(ctx context.Context, o VerifyOptions) []CheckResult {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return []CheckResult{verifyHeld(ctx, o), verifyOutside(ctx, o), verifyApproved(ctx, o)}
}

func verifyHeld(ctx context.Context, o VerifyOptions) CheckResult {
	name := fmt.Sprintf("first-seen-%d.example", o.Now().Unix())
	r := CheckResult{Name: "a first-seen name (" + name + ") gets the block address"}
	m, err := exchange(ctx, o.Resolver, name, o.Timeout)
	if err != nil {
		r.Status, r.Detail = Fail, fmt.Sprintf("no answer from %s: %v", o.Resolver, err)
		return r
	}
	addrs, ede := answerAddrs(m), edeOf(m)
	switch {
	case len(addrs) == 1 && slices.Contains(o.Block, addrs[0]):
		r.Status, r.Detail = Pass, fmt.Sprintf("%s %s", addrs[0], ede)
	default:
		r.Status, r.Detail = Fail, fmt.Sprintf("answered %s %v %s (is the client's policy in enforce mode with hold_first_seen?)", dns.RcodeToString[m.Rcode], addrs, ede)
	}
	return r
}

func verifyOutside(ctx context.Context, o VerifyOptions) CheckResult {
	r := CheckResult{Name: "a query to an outside resolver is dropped"}
	if !o.Outside.IsValid() {
		r.Status, r.Detail = Skip, "no outside resolver given"
		return r
	}
	r.Name = fmt.Sprintf("a query to an outside resolver (%s) is dropped", o.Outside)
	m, err := exchange(ctx, o.Outside, "example.com", o.Timeout)
	var ne net.Error
	switch {
	case err == nil:
		r.Status, r.Detail = Fail, fmt.Sprintf("it answered (%s): DNS goes around Agent DNS; load the ruleset from `sidecar dns firewall --print`", dns.RcodeToString[m.Rcode])
	case errors.As(err, &ne) && ne.Timeout():
		r.Status, r.Detail = Pass, fmt.Sprintf("no answer in %v", o.Timeout)
	case errors.Is(err, syscall.EPERM):
		r.Status, r.Detail = Pass, "the send was refused by the firewall"
	default:
		r.Status, r.Detail = Fail, fmt.Sprintf("%v: the query left this machine's fence (a drop would time out)", err)
	}
	return r
}

func verifyApproved(ctx context.Context, o VerifyOptions) CheckResult {
	r := CheckResult{Name: "an approved name resolves"}
	if o.Approved == "" {
		r.Status, r.Detail = Skip, "no approved name to try"
		return r
	}
	r.Name = fmt.Sprintf("an approved name (%s) resolves", o.Approved)
	m, err := exchange(ctx, o.Resolver, o.Approved, o.Timeout)
	if err != nil {
		r.Status, r.Detail = Fail, fmt.Sprintf("no answer from %s: %v", o.Resolver, err)
		return r
	}
	addrs, ede := answerAddrs(m), edeOf(m)
	switch {
	case m.Rcode != dns.RcodeSuccess || len(addrs) == 0:
		r.Status, r.Detail = Fail, fmt.Sprintf("answered %s with no address %s", dns.RcodeToString[m.Rcode], ede)
	case ede != "" || slices.ContainsFunc(addrs, func(a netip.Addr) bool { return slices.Contains(o.Block, a) }):
		r.Status, r.Detail = Fail, fmt.Sprintf("answered the block address %v %s", addrs, ede)
	default:
		r.Status, r.Detail = Pass, fmt.Sprint(addrs)
	}
	return r
}

func exchange(ctx context.Context, to netip.AddrPort, name string, timeout time.Duration) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeA)
	m.SetEdns0(ednsSize, false)
	c := &dns.Client{Timeout: timeout}
	r, _, err := c.ExchangeContext(ctx, m, to.String())
	return r, err
}

func edeOf(m *dns.Msg) string {
	opt := m.IsEdns0()
	if opt == nil {
		return ""
	}
	var parts []string
	for _, o := range opt.Option {
		if e, ok := o.(*dns.EDNS0_EDE); ok {
			parts = append(parts, fmt.Sprintf("(EDE %d: %s)", e.InfoCode, e.ExtraText))
		}
	}
	return strings.Join(parts, " ")
}
