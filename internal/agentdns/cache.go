package agentdns

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"github.com/miekg/dns"
)

const (
	cacheShards = 32
	// negativeTTL caps how long NXDOMAIN and NODATA are kept (RFC 2308
	// suggests hours; agents retry, so keep it short).
	negativeTTL = 60
)

// cacheStage answers from earlier upstream answers until their TTL runs
// out, and stores what the rest of the chain answers. SERVFAIL, truncated
// answers and answers without a usable TTL are not kept.
type cacheStage struct {
	seed   maphash.Seed
	sh     [cacheShards]cacheShard
	perSh  int
	maxTTL time.Duration
	now    func() time.Time
}

type cacheKey struct {
	name   string
	qtype  uint16
	do, cd bool
}

type cacheEntry struct {
	msg     *dns.Msg
	stored  time.Time
	expires time.Time
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[cacheKey]cacheEntry
}

func newCacheStage(maxEntries int, maxTTL time.Duration, now func() time.Time) *cacheStage {
	c := &cacheStage{seed: maphash.MakeSeed(), perSh: (maxEntries + cacheShards - 1) / cacheShards, maxTTL: maxTTL, now: now}
	for i := range c.sh {
		c.sh[i].m = map[cacheKey]cacheEntry{}
	}
	return c
}

func (*cacheStage) Name() string { return "cache" }

func (c *cacheStage) ServeDNS(ctx context.Context, q *Query, next Next) (*dns.Msg, error) {
	if c.perSh == 0 {
		return next(ctx, q)
	}
	k := cacheKey{name: q.Name, qtype: q.Type, cd: q.Req.CheckingDisabled}
	if opt := q.Req.IsEdns0(); opt != nil {
		k.do = opt.Do()
	}
	sh := &c.sh[maphash.String(c.seed, k.name)%cacheShards]
	now := c.now()
	sh.mu.RLock()
	e, ok := sh.m[k]
	sh.mu.RUnlock()
	if ok && now.Before(e.expires) {
		q.Cached = true
		return aged(e, now), nil
	}
	m, err := next(ctx, q)
	if err != nil {
		return nil, err
	}
	if ttl := c.ttlOf(m); ttl > 0 {
		e := cacheEntry{msg: m.Copy(), stored: now, expires: now.Add(ttl)}
		sh.mu.Lock()
		if len(sh.m) >= c.perSh {
			// Evict an arbitrary entry: map order is random enough, and a
			// full cache under an agent's load is rare.
			for old := range sh.m {
				delete(sh.m, old)
				break
			}
		}
		sh.m[k] = e
		sh.mu.Unlock()
	}
	return m, nil
}

// ttlOf returns how long m may be kept: the smallest TTL in it, capped.
func (c *cacheStage) ttlOf(m *dns.Msg) time.Duration {
	if m.Truncated || (m.Rcode != dns.RcodeSuccess && m.Rcode != dns.RcodeNameError) {
		return 0
	}
	ttl := uint32(1<<32 - 1)
	negative := m.Rcode == dns.RcodeNameError || len(m.Answer) == 0
	for _, sec := range [][]dns.RR{m.Answer, m.Ns, m.Extra} {
		for _, rr := range sec {
			if h := rr.Header(); h.Rrtype != dns.TypeOPT {
				ttl = min(ttl, h.Ttl)
				if negative && h.Rrtype == dns.TypeSOA {
					ttl = min(ttl, rr.(*dns.SOA).Minttl)
				}
			}
		}
	}
	if negative {
		// Without an SOA a negative answer has no TTL to go by (RFC 2308).
		if !hasSOA(m.Ns) {
			return 0
		}
		ttl = min(ttl, negativeTTL)
	}
	d := time.Duration(ttl) * time.Second
	return min(d, c.maxTTL)
}

func hasSOA(rrs []dns.RR) bool {
	for _, rr := range rrs {
		if rr.Header().Rrtype == dns.TypeSOA {
			return true
		}
	}
	return false
}

// aged returns a copy of e's message with TTLs lowered by the time spent
// in the cache.
func aged(e cacheEntry, now time.Time) *dns.Msg {
	m := e.msg.Copy()
	elapsed := uint32(now.Sub(e.stored) / time.Second)
	for _, sec := range [][]dns.RR{m.Answer, m.Ns, m.Extra} {
		for _, rr := range sec {
			if h := rr.Header(); h.Rrtype != dns.TypeOPT {
				if h.Ttl > elapsed {
					h.Ttl -= elapsed
				} else {
					h.Ttl = 0
				}
			}
		}
	}
	return m
}
