package agentdns

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

const learnConfig = `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - name: sandbox
    clients: {listeners: [main]}
    mode: learn
    hold_ttl: 7
`

const heldText = "sidecar: new.example is held: first seen under policy sandbox; a person must approve it (sidecar dns approve new.example --policy sandbox)"

func TestLearnThenEnforce(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", learnConfig)
	ctx := context.Background()

	// Learn: everything resolves and is recorded.
	got := summarize(ask(t, s.addr, "seen.example", dns.TypeA, true, false))
	want := summary{Rcode: "NOERROR", Answers: []string{"seen.example. 30 IN A 192.0.2.1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("learn-mode answer (-want +got):\n%s", diff)
	}
	if _, err := s.admin.SetMode(ctx, "sandbox", "enforce"); err != nil {
		t.Fatal(err)
	}
	before := up.count()
	tests := []struct {
		name  string
		qname string
		qtype uint16
		want  summary
	}{
		{"baseline name still resolves (cached)", "seen.example", dns.TypeA, summary{Rcode: "NOERROR", Answers: []string{"seen.example. 30 IN A 192.0.2.1"}}},
		{"first seen A is held", "new.example", dns.TypeA, summary{Rcode: "NOERROR", Answers: []string{"new.example. 7 IN A 0.0.0.0"}, EDE: "17 " + heldText}},
		{"first seen AAAA is held", "new.example", dns.TypeAAAA, summary{Rcode: "NOERROR", Answers: []string{"new.example. 7 IN AAAA ::"}, EDE: "17 " + heldText}},
		{"other types get NODATA", "new.example", dns.TypeTXT, summary{Rcode: "NOERROR", EDE: "17 " + heldText}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(ask(t, s.addr, tc.qname, tc.qtype, true, false))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	if n := up.count(); n != before {
		t.Errorf("upstream asked %d more times in enforce mode (%v); a held name must never be forwarded", n-before, up.names())
	}
	inv, err := s.admin.Inventory(ctx, inventory.Filter{Policy: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, e := range inv {
		rows = append(rows, e.Name+" "+string(e.Status)+" "+e.Rule)
	}
	if diff := cmp.Diff([]string{"new.example held hold_first_seen", "seen.example learned baseline"}, rows); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
}

func TestHoldThenApprove(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - name: sandbox
    clients: {sources: [127.0.0.0/8]}
    mode: enforce
`)
	held := summarize(ask(t, s.addr, "new.example", dns.TypeA, true, true))
	if held.Answers[0] != "new.example. 5 IN A 0.0.0.0" || held.EDE != "17 "+heldText {
		t.Fatalf("held answer = %+v", held)
	}
	e, err := s.admin.Approve(context.Background(), "sandbox", "New.Example.")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "new.example" || e.Status != inventory.Approved || !e.Decided || e.Count != 1 {
		t.Errorf("approved entry = %+v", e)
	}
	got := summarize(ask(t, s.addr, "new.example", dns.TypeA, true, false))
	if diff := cmp.Diff(summary{Rcode: "NOERROR", Answers: []string{"new.example. 30 IN A 192.0.2.1"}}, got); diff != "" {
		t.Errorf("after approve (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"new.example."}, up.names()); diff != "" {
		t.Errorf("upstream asked (-want +got):\n%s", diff)
	}
}

func TestDenyBeatsAllow(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - name: p
    clients: {listeners: [main]}
    mode: learn
    block_address: [192.0.2.99]
    allow: ["*.example.com", ok.example.org]
    deny: [bad.example.com]
    templates: [openai]
`)
	if _, err := s.admin.Deny(context.Background(), "p", "ok.example.org"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, qname string
		qtype       uint16
		want        summary
	}{
		{"deny list beats allow suffix", "bad.example.com", dns.TypeA, summary{Rcode: "NOERROR",
			Answers: []string{"bad.example.com. 5 IN A 192.0.2.99"}, EDE: "15 sidecar: bad.example.com is denied by policy p (rule deny:bad.example.com)"}},
		{"no v6 block address: NODATA", "bad.example.com", dns.TypeAAAA, summary{Rcode: "NOERROR",
			EDE: "15 sidecar: bad.example.com is denied by policy p (rule deny:bad.example.com)"}},
		{"person's deny beats allow list", "ok.example.org", dns.TypeA, summary{Rcode: "NOERROR",
			Answers: []string{"ok.example.org. 5 IN A 192.0.2.99"}, EDE: "15 sidecar: ok.example.org is denied by policy p (rule person:denied)"}},
		{"allow suffix resolves", "www.example.com", dns.TypeA, summary{Rcode: "NOERROR", Answers: []string{"www.example.com. 30 IN A 192.0.2.1"}}},
		{"template resolves", "api.openai.com", dns.TypeA, summary{Rcode: "NOERROR", Answers: []string{"api.openai.com. 30 IN A 192.0.2.1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summarize(ask(t, s.addr, tc.qname, tc.qtype, true, false))); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"www.example.com.", "api.openai.com."}, up.names()); diff != "" {
		t.Errorf("upstream asked (-want +got):\n%s", diff)
	}
	e, _ := s.inv.Get("p", "api.openai.com")
	if e.Status != inventory.Approved || e.Rule != "template:openai@1" || e.Decided {
		t.Errorf("template entry = %+v", e)
	}
}

func TestTemplatesInEnforceMode(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - name: gateway
    clients: {listeners: [main]}
    mode: enforce
    hold_first_seen: false
    default_action: deny
    templates: [anthropic@1, telegram, hermes-update]
`)
	tests := []struct {
		qname string
		want  string
	}{
		{"api.anthropic.com", "NOERROR 192.0.2.1"},
		{"api.telegram.org", "NOERROR 192.0.2.1"},
		{"objects.githubusercontent.com", "NOERROR 192.0.2.1"},
		{"githubusercontent.com", "NOERROR 0.0.0.0 rule default:deny"},
		{"api.openai.com", "NOERROR 0.0.0.0 rule default:deny"},
	}
	for _, tc := range tests {
		t.Run(tc.qname, func(t *testing.T) {
			m := ask(t, s.addr, tc.qname, dns.TypeA, true, false)
			got := dns.RcodeToString[m.Rcode] + " " + m.Answer[0].(*dns.A).A.String()
			if sum := summarize(m); sum.EDE != "" {
				got += " rule " + sum.EDE[len(sum.EDE)-len("default:deny)"):len(sum.EDE)-1]
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoEDEWithoutEDNS(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", learnConfig)
	if _, err := s.admin.SetMode(context.Background(), "sandbox", "enforce"); err != nil {
		t.Fatal(err)
	}
	m := ask(t, s.addr, "new.example", dns.TypeA, false, false)
	if m.IsEdns0() != nil || len(m.Answer) != 1 || m.Answer[0].(*dns.A).A.String() != "0.0.0.0" {
		t.Errorf("answer without EDNS = %v", m)
	}
}

func TestClientWithoutPolicyIsRefused(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - name: p
    clients: {sources: [10.0.0.0/8]}
`)
	got := summarize(ask(t, s.addr, "x.example", dns.TypeA, true, false))
	want := summary{Rcode: "REFUSED", EDE: "18 sidecar: no policy covers this client"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if up.count() != 0 {
		t.Errorf("upstream asked %d times", up.count())
	}
}
