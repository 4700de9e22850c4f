package firewall

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

// TestResolverFillsSetBeforeAnswer runs Agent DNS inside a namespace of its
// own, fenced with the RawIP ruleset and SetSink: the client can reach the
// address of an approved name as soon as it has the answer, and nothing
// else.
func TestResolverFillsSetBeforeAnswer(t *testing.T) {
	ns := newNetns(t)
	rules, err := Ruleset(Options{Resolvers: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53")}, RawIP: true, SetTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Apply(ctx, rules, ns.nft); err != nil {
		t.Fatal(err)
	}
	// The upstream shares the resolver's address (on another port), which
	// the ruleset lets through; it answers app.example with 127.0.0.4.
	const cfgText = `
listeners: [{name: fenced, address: "127.0.0.1:53"}]
upstreams: [{address: "127.0.0.1:5300"}]
policies: [{name: sandbox, clients: {listeners: [fenced]}, mode: enforce, allow: [app.example]}]
`
	var closers []func() error
	t.Cleanup(func() {
		for _, c := range closers {
			c()
		}
	})
	ns.do(t, func() {
		pc, err := net.ListenPacket("udp", "127.0.0.1:5300")
		if err != nil {
			t.Error(err)
			return
		}
		up := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
			m := new(dns.Msg)
			m.SetReply(r)
			m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.ParseIP("127.0.0.4")}}
			w.WriteMsg(m)
		})}
		go up.ActivateAndServe() // ends at Shutdown
		closers = append(closers, up.Shutdown)
		for _, a := range []string{"127.0.0.4:8080", "127.0.0.5:8080"} {
			ln, err := net.Listen("tcp", a)
			if err != nil {
				t.Error(err)
				return
			}
			closers = append(closers, ln.Close)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
	})
	if t.Failed() {
		return
	}
	startResolverIn(t, ns, cfgText)

	resolve := func(name string) string {
		var got string
		ns.do(t, func() {
			m := new(dns.Msg)
			m.SetQuestion(name, dns.TypeA)
			r, _, err := (&dns.Client{Timeout: 5 * time.Second}).Exchange(m, "127.0.0.1:53")
			if err != nil || len(r.Answer) != 1 {
				got = fmt.Sprintf("error %v %v", err, r)
				return
			}
			got = r.Answer[0].(*dns.A).A.String()
		})
		return got
	}
	connect := func(addr string) error {
		var err error
		ns.do(t, func() {
			var c net.Conn
			if c, err = net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
			}
		})
		return err
	}
	if err := connect("127.0.0.4:8080"); err == nil {
		t.Fatal("connected to 127.0.0.4 before any answer named it")
	}
	if got := resolve("app.example."); got != "127.0.0.4" {
		t.Fatalf("app.example = %s, want 127.0.0.4", got)
	}
	// No wait: the set was filled before the answer left.
	if err := connect("127.0.0.4:8080"); err != nil {
		t.Errorf("connect to the answered address: %v", err)
	}
	if got := resolve("held.example."); got != "0.0.0.0" {
		t.Errorf("held.example = %s, want the block address", got)
	}
	if err := connect("127.0.0.5:8080"); err == nil {
		t.Error("connected to an address no answer named")
	}
}

// startResolverIn runs Agent DNS as a child process inside ns (the test
// binary again, as TestHelperResolver), so every socket it opens, upstream
// ones included, is in the namespace, and its SetSink's nft acts there.
func startResolverIn(t *testing.T, ns *netns, cfgText string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dns.yaml"), []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", ns.name, os.Args[0], "-test.run=^TestHelperResolver$")
	cmd.Env = append(os.Environ(), "SIDECAR_TEST_RESOLVER_DIR="+dir)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait() // its exit status is the helper's, checked through its output
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var up bool
		ns.do(t, func() {
			m := new(dns.Msg)
			m.SetQuestion("ready.example.", dns.TypeTXT)
			_, _, err := (&dns.Client{Timeout: 200 * time.Millisecond}).Exchange(m, "127.0.0.1:53")
			up = err == nil
		})
		if up {
			return
		}
	}
	t.Fatalf("the resolver in %s did not start:\n%s", ns.name, out)
}

// TestHelperResolver is not a test: startResolverIn runs the test binary
// with it to serve Agent DNS from the config in $SIDECAR_TEST_RESOLVER_DIR.
func TestHelperResolver(t *testing.T) {
	dir := os.Getenv("SIDECAR_TEST_RESOLVER_DIR")
	if dir == "" {
		t.Skip("helper process for TestResolverFillsSetBeforeAnswer")
	}
	cat, err := templates.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(dir, "dns.yaml"), cat)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = agentdns.Run(ctx, agentdns.Options{Config: cfg, Dir: dir, Templates: cat, Log: os.Stderr,
		Sink: &SetSink{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
}
