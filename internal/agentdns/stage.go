package agentdns

import (
	"context"
	"sync/atomic"

	"github.com/miekg/dns"
)

// Next hands a query to the rest of the chain.
type Next func(ctx context.Context, q *Query) (*dns.Msg, error)

// Stage is one step of the resolver's chain. ServeDNS either answers the
// query itself or calls next and returns (possibly after looking at) what
// the rest of the chain answered. The message returned is the stage's to
// give away: callers may change it. An error becomes SERVFAIL.
type Stage interface {
	// Name is the stage's name in metrics and docs.
	Name() string
	ServeDNS(ctx context.Context, q *Query, next Next) (*dns.Msg, error)
}

// StageStats counts what one stage did.
type StageStats struct {
	Name string `json:"name"`
	// Queries entered the stage; Answered were answered by it without
	// handing on; Errors returned an error.
	Queries  uint64 `json:"queries"`
	Answered uint64 `json:"answered"`
	Errors   uint64 `json:"errors"`
}

type stageCounters struct {
	queries, answered, errors atomic.Uint64
}

// chain is the stages in order, linked once at start.
type chain struct {
	stages   []Stage
	counters []stageCounters
	entry    Next
}

func newChain(stages ...Stage) *chain {
	c := &chain{stages: stages, counters: make([]stageCounters, len(stages))}
	// The end of the chain: reached only if the last stage hands on, which
	// forward never does.
	next := Next(func(context.Context, *Query) (*dns.Msg, error) {
		return nil, errEndOfChain
	})
	for i := len(stages) - 1; i >= 0; i-- {
		next = c.link(i, next)
	}
	c.entry = next
	return c
}

func (c *chain) link(i int, next Next) Next {
	st, ctr := c.stages[i], &c.counters[i]
	return func(ctx context.Context, q *Query) (*dns.Msg, error) {
		ctr.queries.Add(1)
		q.reached = i
		m, err := st.ServeDNS(ctx, q, next)
		if err != nil {
			ctr.errors.Add(1)
		} else if q.reached == i {
			ctr.answered.Add(1)
		}
		return m, err
	}
}

func (c *chain) stats() []StageStats {
	out := make([]StageStats, len(c.stages))
	for i, st := range c.stages {
		out[i] = StageStats{
			Name:     st.Name(),
			Queries:  c.counters[i].queries.Load(),
			Answered: c.counters[i].answered.Load(),
			Errors:   c.counters[i].errors.Load(),
		}
	}
	return out
}
