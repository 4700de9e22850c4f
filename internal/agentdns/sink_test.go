package agentdns

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
)

// recordingSink records what it is given; err, if set, fails every Add.
type recordingSink struct {
	mu    sync.Mutex
	added []string
	err   error
}

func (r *recordingSink) Add(_ context.Context, pol string, addrs []netip.Addr) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range addrs {
		r.added = append(r.added, pol+" "+a.String())
	}
	return r.err
}

func (r *recordingSink) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.added...)
}

func TestAddressSinkFilledBeforeAnswer(t *testing.T) {
	const cfg = `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies: [{name: p, clients: {listeners: [main]}, mode: enforce, allow: [ok.example]}]
`
	t.Run("addresses of allowed names, and only those", func(t *testing.T) {
		up := startUpstream(t, nil)
		sink := &recordingSink{}
		s := startServer(t, up, "", cfg, func(o *Options) { o.Sink = sink })
		ask(t, s.addr, "ok.example", dns.TypeA, true, false)
		// By the time the answer is here, the sink has the address.
		if diff := cmp.Diff([]string{"p 192.0.2.1"}, sink.got()); diff != "" {
			t.Errorf("sink (-want +got):\n%s", diff)
		}
		ask(t, s.addr, "held.example", dns.TypeA, true, false)
		ask(t, s.addr, "ok.example", dns.TypeAAAA, true, false)
		if diff := cmp.Diff([]string{"p 192.0.2.1", "p 2001:db8::1"}, sink.got()); diff != "" {
			t.Errorf("sink (-want +got):\n%s", diff)
		}
	})
	t.Run("a sink that fails fails the query", func(t *testing.T) {
		up := startUpstream(t, nil)
		s := startServer(t, up, "", cfg, func(o *Options) { o.Sink = &recordingSink{err: errors.New("nft: table missing")} })
		got := summarize(ask(t, s.addr, "ok.example", dns.TypeA, true, false))
		if diff := cmp.Diff(summary{Rcode: "SERVFAIL", EDE: "0 sidecar: the firewall could not be opened for this answer"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
