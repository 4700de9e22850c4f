package agentdns

import (
	"context"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/events"
)

// logStage times each query and writes its event after the rest of the
// chain has answered: one record per decision.
type logStage struct {
	out *events.Writer
	now func() time.Time
}

func (*logStage) Name() string { return "log" }

func (s *logStage) ServeDNS(ctx context.Context, q *Query, next Next) (*dns.Msg, error) {
	m, err := next(ctx, q)
	e := events.Event{
		Time: q.Start, Event: q.Event, Policy: q.Policy, Client: q.Client.String(), Listener: q.Listener,
		Name: q.Name, Type: typeName(q.Type), Decision: decisionName(q), Rule: q.Rule, Cached: q.Cached,
		LatencyMs: float64(s.now().Sub(q.Start).Microseconds()) / 1000,
	}
	switch {
	case err != nil:
		e.Rcode = "SERVFAIL"
		e.Detail = err.Error()
		if e.Event == "" || e.Event == events.NewQuery || e.Event == events.Query {
			e.Event = "error"
		}
	case m != nil:
		e.Rcode = dns.RcodeToString[m.Rcode]
		e.Answers = answerStrings(m)
	}
	s.out.Write(&e)
	return m, err
}

func decisionName(q *Query) string {
	if q.Event == events.Refused {
		return events.DecisionRefused
	}
	return q.Verdict.String()
}

// answerStrings renders the answer section compactly: addresses and
// targets as themselves, anything else as "TYPE rdata".
func answerStrings(m *dns.Msg) []string {
	if len(m.Answer) == 0 {
		return nil
	}
	out := make([]string, 0, len(m.Answer))
	for _, rr := range m.Answer {
		switch r := rr.(type) {
		case *dns.A:
			out = append(out, r.A.String())
		case *dns.AAAA:
			out = append(out, r.AAAA.String())
		case *dns.CNAME:
			out = append(out, "CNAME "+strings.TrimSuffix(r.Target, "."))
		default:
			h := rr.Header()
			out = append(out, typeName(h.Rrtype)+" "+strings.TrimPrefix(rr.String(), h.String()))
		}
	}
	return out
}
