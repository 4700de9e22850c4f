package config

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func catalog(t testing.TB) *templates.Catalog {
	t.Helper()
	c, err := templates.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadFull(t *testing.T) {
	got, err := Load("testdata/full.yaml", catalog(t))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := &Config{
		File: "testdata/full.yaml",
		Listeners: []Listener{
			{Name: "host", Address: netip.MustParseAddrPort("127.0.0.1:8753"), Line: 4, Column: 5},
			{Name: "sandbox", Address: netip.MustParseAddrPort("[::1]:8754"), Line: 6, Column: 5},
		},
		Upstreams: []Upstream{
			{Address: netip.MustParseAddrPort("127.0.0.1:5300"), Timeout: 1500 * time.Millisecond},
			{Address: netip.MustParseAddrPort("[::1]:853"), TLS: true, ServerName: "dns.example", Timeout: DefaultTimeout},
		},
		Cache:  Cache{MaxEntries: 5000, MaxTTL: 600 * time.Second},
		Events: Events{MaxSizeMB: 20, MaxBackups: 3, MaxAgeDays: 30},
		Policies: []Policy{
			{
				Name: "hermes-gateway", Clients: policy.Clients{Listeners: []string{"host"}},
				Mode: policy.Enforce, Default: policy.Deny, HoldFirstSeen: false,
				BlockV4: netip.IPv4Unspecified(), BlockV6: netip.IPv6Unspecified(), HoldTTL: DefaultHoldTTL,
				Allow: []string{"api.openai.com"}, Templates: []string{"anthropic", "telegram@1"}, Line: 21, Column: 5,
			},
			{
				Name: "hermes-sandbox",
				Clients: policy.Clients{Listeners: []string{"sandbox"}, Sources: []netip.Prefix{
					netip.MustParsePrefix("10.88.0.0/16"), netip.MustParsePrefix("fd00::1/128")}},
				Mode: policy.Learn, Default: policy.Allow, HoldFirstSeen: true,
				BlockV4: netip.MustParseAddr("192.0.2.1"), BlockV6: netip.MustParseAddr("2001:db8::1"), HoldTTL: 2,
				Allow: []string{"*.github.com"}, Deny: []string{"*.pastebin.com", "Evil.Example."},
				Templates: []string{"pypi"}, Line: 29, Column: 5,
			},
		},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }),
		cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b }),
		cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func TestParseDefaults(t *testing.T) {
	got, err := Parse("d.yaml", []byte("upstreams: [{address: 127.0.0.1}]\npolicies: [{name: p, clients: {listeners: [default]}}]\n"), catalog(t))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got.Listeners[0].Address.String() != DefaultListen || got.Upstreams[0].Address.String() != "127.0.0.1:53" {
		t.Errorf("defaults: listeners %+v upstreams %+v", got.Listeners, got.Upstreams)
	}
	p := got.Policies[0]
	if p.Mode != policy.Learn || p.Default != policy.Deny || !p.HoldFirstSeen || p.HoldTTL != DefaultHoldTTL ||
		p.BlockV4.String() != "0.0.0.0" || p.BlockV6.String() != "::" {
		t.Errorf("policy defaults: %+v", p)
	}
}

// TestParseErrors checks each problem is reported with its line and column.
func TestParseErrors(t *testing.T) {
	const head = "upstreams: [{address: 127.0.0.1}]\n"
	tests := []struct {
		name, body string
		want       []string
	}{
		{"not yaml", "a: [", []string{"f.yaml: line 1: did not find expected node content"}},
		{"empty", "", []string{"f.yaml: empty file: want listeners, upstreams and policies"}},
		{"unknown top key", head + "policys: []\n", []string{
			"f.yaml:2:1: policys: unknown key",
			"f.yaml:1:1: policies: want at least one policy"}},
		{"bad mode", head + "policies:\n  - name: p\n    clients: {sources: [10.0.0.0/8]}\n    mode: lurn\n", []string{
			`f.yaml:5:11: policies[0].mode: want learn or enforce, got "lurn"`}},
		{"bad action and bool", head + "policies:\n  - name: p\n    clients: {sources: [10.0.0.0/8]}\n    default_action: drop\n    hold_first_seen: yes please\n", []string{
			`f.yaml:5:21: policies[0].default_action: want allow or deny, got "drop"`,
			`f.yaml:6:22: policies[0].hold_first_seen: want true or false, got "yes please"`}},
		{"bad patterns and template", head + "policies:\n  - name: p\n    clients: {sources: [10.0.0.0/8]}\n    allow: [ok.example, \"a.*.b\"]\n    templates: [openai@9]\n", []string{
			`f.yaml:5:25: policies[0].allow[1]: bad name pattern: "a.*.b": character '*' not allowed (only a-z, 0-9, '-', '_'; a wildcard only as a leading "*.")`,
			"f.yaml:6:17: policies[0].templates[0]: template version mismatch: openai is pinned at version 9 but version 1 ships; review it with `sidecar dns templates show openai` and update the pin"}},
		{"clients", head + "policies:\n  - name: p\n    clients: {sources: [10.0.0.1/8, nope]}\n  - name: q\n", []string{
			"f.yaml:4:25: policies[0].clients.sources[0]: prefix 10.0.0.1/8 has host bits set; did you mean 10.0.0.0/8?",
			`f.yaml:4:37: policies[0].clients.sources[1]: want an address or CIDR prefix, got "nope"`,
			"f.yaml:4:14: policies[0].clients: want listeners or sources (or both)",
			"f.yaml:5:5: policies[1].clients: missing: say which listeners or source addresses this policy applies to"}},
		{"hold ttl and block address", head + "policies:\n  - name: p\n    clients: {listeners: [default]}\n    hold_ttl: 99999\n    block_address: [1.2.3.4, 5.6.7.8, x]\n", []string{
			"f.yaml:5:15: policies[0].hold_ttl: want 0 to 3600, got 99999",
			"f.yaml:6:30: policies[0].block_address[1]: want at most one IPv4 and one IPv6 address, got another: 5.6.7.8",
			`f.yaml:6:39: policies[0].block_address[2]: want an IP address, got "x"`}},
		{"cross references", "listeners: [{name: a, address: 127.0.0.1:1}, {name: a, address: 127.0.0.1:1}]\n" + head +
			"policies:\n  - name: p\n    clients: {listeners: [b]}\n  - name: p\n    clients: {listeners: [a]}\n", []string{
			`f.yaml:1:46: listeners[1].name: listener "a" given twice`,
			"f.yaml:1:46: listeners[1].address: address 127.0.0.1:1 given twice",
			`f.yaml:4:5: policies[0].clients.listeners: names listener "b", which is not in listeners`,
			`f.yaml:6:5: policies[1].name: policy "p" given twice`}},
		{"upstreams", "upstreams: [{address: dns.google}, {address: tls://127.0.0.1}]\npolicies: [{name: P, clients: {listeners: [default]}}]\n", []string{
			`f.yaml:1:23: upstreams[0].address: want IP, IP:port or tls://IP:port (a resolver is reached by address), got "dns.google"`,
			"f.yaml:1:46: upstreams[1].server_name: a tls:// upstream needs the name its certificate carries",
			`f.yaml:2:19: policies[0].name: want 1 to 64 of a-z, 0-9, '-', '_' starting with a letter or digit, got "P"`}},
		{"duplicate key and wrong shapes", head + "cache: {max_ttl: 1, max_ttl: 2}\nevents: [1]\npolicies: {}\n", []string{
			"f.yaml:2:21: cache.max_ttl: given twice",
			"f.yaml:3:9: events: want a mapping of keys to values",
			"f.yaml:4:11: policies: want a list",
			"f.yaml:1:1: policies: want at least one policy"}},
	}
	cat := catalog(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.body), cat)
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			got := strings.Split(err.Error(), "\n")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("error %T is not a *config.Error", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"), catalog(t))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load error = %v, want ErrNotExist", err)
	}
}

func FuzzParse(f *testing.F) {
	b, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	cat := catalog(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data, cat)
		if (c == nil) == (err == nil) {
			t.Fatalf("Parse returned config %v and error %v", c != nil, err)
		}
		if err == nil && (len(c.Policies) == 0 || len(c.Upstreams) == 0 || len(c.Listeners) == 0) {
			t.Fatalf("valid config without policies, upstreams or listeners: %+v", c)
		}
	})
}
