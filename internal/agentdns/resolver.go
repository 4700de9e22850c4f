package agentdns

import (
	"crypto/tls"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/events"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

// Resolver answers queries through the chain of stages. It owns no
// sockets and no files (Server does); it is safe for concurrent use.
type Resolver struct {
	chain    *chain
	policies *policies
	inv      *inventory.Store
	ups      []*upstream
	now      func() time.Time
}

// resolverDeps is what a Resolver is built from.
type resolverDeps struct {
	cfg      *config.Config
	policies *policies
	inv      *inventory.Store
	events   *events.Writer
	sink     AddressSink
	tls      *tls.Config
	now      func() time.Time
}

// newResolver links the chain, once: log, sanity, policy, cache, forward.
func newResolver(d resolverDeps) *Resolver {
	var ups []*upstream
	for _, u := range d.cfg.Upstreams {
		ups = append(ups, newUpstream(u, d.tls))
	}
	c := newChain(
		&logStage{out: d.events, now: d.now},
		sanityStage{},
		&policyStage{set: d.policies, inv: d.inv, sink: d.sink},
		newCacheStage(d.cfg.Cache.MaxEntries, d.cfg.Cache.MaxTTL, d.now),
		&forwardStage{ups: ups},
	)
	return &Resolver{chain: c, policies: d.policies, inv: d.inv, ups: ups, now: d.now}
}

// Stats returns each stage's counters, in chain order.
func (r *Resolver) Stats() []StageStats { return r.chain.stats() }

func (r *Resolver) close() {
	for _, u := range r.ups {
		u.close()
	}
}
