package agentdns

import (
	"context"
	"errors"
	"fmt"

	"github.com/miekg/dns"
)

// forwardStage asks the upstreams in order until one answers. It always
// answers: the end of the chain.
type forwardStage struct {
	ups []*upstream
}

func (*forwardStage) Name() string { return "forward" }

func (f *forwardStage) ServeDNS(ctx context.Context, q *Query, _ Next) (*dns.Msg, error) {
	if len(f.ups) == 0 {
		return nil, errNoUpstreams
	}
	m := upstreamQuery(q.Req)
	var errs []error
	for _, u := range f.ups {
		r, err := u.exchange(ctx, m)
		if err == nil {
			return r, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("%w: %w", ErrUpstream, errors.Join(errs...))
}

// upstreamQuery builds the query Agent DNS sends upstream: the client's
// question and its RD, CD and DO bits, a fresh ID, and our own EDNS0
// (the client's options are hop-by-hop and stay here).
func upstreamQuery(req *dns.Msg) *dns.Msg {
	m := new(dns.Msg)
	m.Id = dns.Id()
	m.RecursionDesired = true
	m.CheckingDisabled = req.CheckingDisabled
	m.Question = []dns.Question{req.Question[0]}
	do := false
	if opt := req.IsEdns0(); opt != nil {
		do = opt.Do()
	}
	m.SetEdns0(ednsSize, do)
	return m
}
