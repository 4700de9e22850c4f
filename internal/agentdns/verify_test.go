package agentdns

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
)

func TestVerify(t *testing.T) {
	up := startUpstream(t, nil)
	dead := startUpstream(t, func(dns.ResponseWriter, *dns.Msg) *dns.Msg { return nil })
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies: [{name: p, clients: {listeners: [main]}, mode: enforce}]
`)
	ctx := context.Background()
	if _, err := s.admin.Approve(ctx, "p", "ok.example"); err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	block := []netip.Addr{netip.MustParseAddr("0.0.0.0")}
	tests := []struct {
		name string
		o    VerifyOptions
		want []string
	}{
		{"fenced", VerifyOptions{Resolver: s.addr, Outside: dead.addr, Approved: "ok.example", Block: block}, []string{Pass, Pass, Pass}},
		{"outside resolver answers", VerifyOptions{Resolver: s.addr, Outside: up.addr, Approved: "ok.example", Block: block}, []string{Pass, Fail, Pass}},
		{"nothing to compare", VerifyOptions{Resolver: s.addr}, []string{Fail, Skip, Skip}},
		{"approved name is held", VerifyOptions{Resolver: s.addr, Approved: "not-approved.example", Block: block}, []string{Pass, Skip, Fail}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Now, tc.o.Timeout = clk.Now, 300*time.Millisecond
			var got []string
			for _, r := range Verify(ctx, tc.o) {
				got = append(got, r.Status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
	r := Verify(ctx, VerifyOptions{Resolver: s.addr, Block: block, Now: clk.Now})[0]
	want := CheckResult{Name: "a first-seen name (first-seen-1772600767.example) gets the block address", Status: Pass,
		Detail: "0.0.0.0 (EDE 17: sidecar: first-seen-1772600767.example is held: first seen under policy p; a person must approve it (sidecar dns approve first-seen-1772600767.example --policy p))"}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
