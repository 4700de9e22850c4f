package agentdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/events"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func TestPersistenceAcrossRestart(t *testing.T) {
	up := startUpstream(t, nil)
	dir := t.TempDir()
	ctx := context.Background()
	s1 := startServer(t, up, dir, learnConfig)
	ask(t, s1.addr, "learned.example", dns.TypeA, true, false)
	if _, err := s1.admin.SetMode(ctx, "sandbox", "enforce"); err != nil {
		t.Fatal(err)
	}
	ask(t, s1.addr, "approve-me.example", dns.TypeA, true, false) // held
	for _, f := range []func(context.Context, string, string) (any, error){
		func(ctx context.Context, p, n string) (any, error) { return s1.admin.Approve(ctx, p, n) },
	} {
		if _, err := f(ctx, "sandbox", "approve-me.example"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s1.admin.Deny(ctx, "sandbox", "learned.example"); err != nil {
		t.Fatal(err)
	}
	ask(t, s1.addr, "still-held.example", dns.TypeA, true, false)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	// Same state dir, same dns.yaml (which says learn): the mode set at
	// run time, the decisions and the held name all come back.
	s2 := startServer(t, up, dir, learnConfig)
	st, err := s2.admin.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Policies[0].Mode != "enforce" || st.Inventory != 3 {
		t.Errorf("after restart: mode %s, %d names; want enforce, 3", st.Policies[0].Mode, st.Inventory)
	}
	tests := []struct{ name, want string }{
		{"approve-me.example", "192.0.2.1"},
		{"learned.example", "0.0.0.0"},
		{"still-held.example", "0.0.0.0"},
	}
	for _, tc := range tests {
		m := ask(t, s2.addr, tc.name, dns.TypeA, true, false)
		if got := m.Answer[0].(*dns.A).A.String(); got != tc.want {
			t.Errorf("%s after restart = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestEventsRecordEveryDecision(t *testing.T) {
	up := startUpstream(t, nil)
	clk := newClock()
	s := startServer(t, up, "", learnConfig, withClock(clk))
	ctx := context.Background()
	ask(t, s.addr, "a.example", dns.TypeA, true, false)
	ask(t, s.addr, "a.example", dns.TypeA, true, false)
	if _, err := s.admin.SetMode(ctx, "sandbox", "enforce"); err != nil {
		t.Fatal(err)
	}
	ask(t, s.addr, "new.example", dns.TypeA, true, false)
	if _, err := s.admin.Approve(ctx, "sandbox", "new.example"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := events.Tail(s.dir, events.Filter{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	client := s.addr.Addr().String()
	want := []events.Event{
		{Event: "new_query", Policy: "sandbox", Listener: "main", Name: "a.example", Type: "A", Decision: "allow", Rule: "mode:learn", Rcode: "NOERROR", Answers: []string{"192.0.2.1"}},
		{Event: "query", Policy: "sandbox", Listener: "main", Name: "a.example", Type: "A", Decision: "allow", Rule: "mode:learn", Rcode: "NOERROR", Answers: []string{"192.0.2.1"}, Cached: true},
		{Event: "mode", Policy: "sandbox", Client: "admin", Rule: "person", Detail: "mode learn -> enforce"},
		{Event: "held", Policy: "sandbox", Listener: "main", Name: "new.example", Type: "A", Decision: "hold", Rule: "hold_first_seen", Rcode: "NOERROR", Answers: []string{"0.0.0.0"}},
		{Event: "approved", Policy: "sandbox", Client: "admin", Name: "new.example", Rule: "person"},
	}
	for i := range got {
		if got[i].Time != clk.Now() {
			t.Errorf("event %d time %v, want the clock's %v", i, got[i].Time, clk.Now())
		}
		if got[i].Client != "admin" {
			host, _, _ := net.SplitHostPort(got[i].Client)
			if host != client {
				t.Errorf("event %d client %q, want from %s", i, got[i].Client, client)
			}
			got[i].Client = ""
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(events.Event{}, "Time", "LatencyMs")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestConcurrentQueries(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", learnConfig)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &dns.Client{}
			if g%2 == 1 {
				c.Net = "tcp"
			}
			for i := 0; i < 60; i++ {
				m := new(dns.Msg)
				m.SetQuestion(fmt.Sprintf("n%d.example.", i%20), dns.TypeA)
				m.SetEdns0(1232, false)
				r, _, err := c.Exchange(m, s.addr.String())
				if err != nil {
					errs <- err
					return
				}
				if len(r.Answer) != 1 {
					errs <- fmt.Errorf("n%d: %v", i%20, r)
					return
				}
			}
		}()
	}
	// Change the policy and approve names while queries run.
	for i := 0; i < 10; i++ {
		mode := []string{"learn", "enforce"}[i%2]
		if _, err := s.admin.SetMode(ctx, "sandbox", mode); err != nil {
			t.Fatal(err)
		}
		if _, err := s.admin.Approve(ctx, "sandbox", fmt.Sprintf("n%d.example", i)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var total uint64
	for _, e := range s.inv.List(inventoryFilter("sandbox")) {
		total += e.Count
	}
	if total != 8*60 {
		t.Errorf("inventory counted %d queries, want %d", total, 8*60)
	}
	st := s.Resolver().Stats()
	if st[0].Name != "log" || st[0].Queries != 8*60 {
		t.Errorf("log stage stats = %+v", st[0])
	}
}

func TestSecondServerOnSameStateDirFails(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", learnConfig)
	cat, _ := templates.Load()
	cfg, _ := config.Parse("dns.yaml", []byte(fmt.Sprintf(`
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: %s}]
policies: [{name: p, clients: {listeners: [main]}}]
`, up.addr)), cat)
	s2, err := New(Options{Config: cfg, Dir: s.dir, Templates: cat})
	if err != nil {
		t.Fatal(err)
	}
	err = s2.Start(context.Background())
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("second Start = %v, want ErrAlreadyRunning", err)
	}
	st, err := os.Stat(filepath.Join(s.dir, admin.SocketName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("admin socket mode = %v, %v; want 0600", st.Mode(), err)
	}
}

func TestAdminErrors(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", learnConfig)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		want admin.APIError
	}{
		{"unknown policy", func() error { _, err := s.admin.Approve(ctx, "nope", "a.example"); return err },
			admin.APIError{Status: 404, Code: "not_found", Message: `unknown policy "nope"`}},
		{"pattern is not a name", func() error { _, err := s.admin.Deny(ctx, "sandbox", "*.example"); return err },
			admin.APIError{Status: 400, Code: "invalid", Message: `bad name: "*.example": approve and deny take one name; put patterns in dns.yaml`}},
		{"bad mode", func() error { _, err := s.admin.SetMode(ctx, "sandbox", "strict"); return err },
			admin.APIError{Status: 400, Code: "invalid", Message: `mode "strict": want learn or enforce`}},
		{"bad action", func() error { _, err := s.admin.SetDefault(ctx, "sandbox", "drop"); return err },
			admin.APIError{Status: 400, Code: "invalid", Message: `action "drop": want allow or deny`}},
		{"bad baseline", func() error {
			_, err := s.admin.ImportBaseline(ctx, "sandbox", admin.Baseline{Version: 1, Names: nil})
			if err != nil {
				return err
			}
			_, err = s.admin.ImportBaseline(ctx, "sandbox", admin.Baseline{Version: 2})
			return err
		}, admin.APIError{Status: 400, Code: "invalid", Message: "baseline version 2: want 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got *admin.APIError
			if err := tc.call(); !errors.As(err, &got) {
				t.Fatalf("error = %v, want *admin.APIError", err)
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBaselineExportImport(t *testing.T) {
	up := startUpstream(t, nil)
	s := startServer(t, up, "", `
listeners: [{name: main, address: "127.0.0.1:0"}, {name: other, address: "127.0.0.1:0"}]
upstreams: [{address: UPSTREAM}]
policies:
  - {name: a, clients: {listeners: [main]}, mode: learn}
  - {name: b, clients: {listeners: [other]}, mode: enforce}
`)
	ctx := context.Background()
	ask(t, s.addr, "one.example", dns.TypeA, true, false)
	ask(t, s.addr, "two.example", dns.TypeA, true, false)
	if _, err := s.admin.Deny(ctx, "a", "bad.example"); err != nil {
		t.Fatal(err)
	}
	b, err := s.admin.ExportBaseline(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	im, err := s.admin.ImportBaseline(ctx, "b", b)
	if err != nil {
		t.Fatal(err)
	}
	if im != (admin.Imported{Approved: 2, Denied: 1}) {
		t.Errorf("imported %+v", im)
	}
	other, _ := s.Addr("other")
	for name, want := range map[string]string{"one.example": "192.0.2.1", "bad.example": "0.0.0.0", "three.example": "0.0.0.0"} {
		m := ask(t, other, name, dns.TypeA, true, false)
		if got := m.Answer[0].(*dns.A).A.String(); got != want {
			t.Errorf("policy b: %s = %s, want %s", name, got, want)
		}
	}
}
