package agentdns

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/goleak"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func TestMain(m *testing.M) {
	// lumberjack v2.2.1 starts one goroutine per log on its first rotation
	// check and never ends it; the daemon opens one log, so it is bounded.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("gopkg.in/natefinch/lumberjack%2ev2.(*Logger).millRun"))
}

// fakeUpstream is a real DNS server on loopback (UDP and TCP) that answers
// every A query with 192.0.2.1 and every AAAA with 2001:db8::1, TTL 30,
// and counts what it was asked.
type fakeUpstream struct {
	addr    netip.AddrPort
	udpQ    atomic.Int64
	tcpQ    atomic.Int64
	mu      sync.Mutex
	asked   []string
	handler func(w dns.ResponseWriter, r *dns.Msg) *dns.Msg
}

func (u *fakeUpstream) count() int64 { return u.udpQ.Load() + u.tcpQ.Load() }

func (u *fakeUpstream) names() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.asked...)
}

func defaultAnswer(_ dns.ResponseWriter, r *dns.Msg) *dns.Msg {
	m := new(dns.Msg)
	m.SetReply(r)
	q := r.Question[0]
	hdr := dns.RR_Header{Name: q.Name, Rrtype: q.Qtype, Class: dns.ClassINET, Ttl: 30}
	switch q.Qtype {
	case dns.TypeA:
		m.Answer = append(m.Answer, &dns.A{Hdr: hdr, A: net.ParseIP("192.0.2.1")})
	case dns.TypeAAAA:
		m.Answer = append(m.Answer, &dns.AAAA{Hdr: hdr, AAAA: net.ParseIP("2001:db8::1")})
	case dns.TypeTXT:
		m.Answer = append(m.Answer, &dns.TXT{Hdr: hdr, Txt: []string{"hello"}})
	}
	return m
}

func startUpstream(t testing.TB, handler func(w dns.ResponseWriter, r *dns.Msg) *dns.Msg) *fakeUpstream {
	t.Helper()
	if handler == nil {
		handler = defaultAnswer
	}
	u := &fakeUpstream{handler: handler}
	var pc net.PacketConn
	var ln net.Listener
	for ln == nil {
		var err error
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		u.addr = pc.LocalAddr().(*net.UDPAddr).AddrPort()
		// The same port for TCP may be taken; then try another.
		if ln, err = net.Listen("tcp", u.addr.String()); err != nil {
			pc.Close()
		}
	}
	h := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
			u.tcpQ.Add(1)
		} else {
			u.udpQ.Add(1)
		}
		u.mu.Lock()
		u.asked = append(u.asked, r.Question[0].Name)
		u.mu.Unlock()
		if m := u.handler(w, r); m != nil {
			w.WriteMsg(m)
		}
	})
	serve(t, &dns.Server{PacketConn: pc, Handler: h}, &dns.Server{Listener: ln, Handler: h})
	return u
}

// serve runs miekg servers until the test ends.
func serve(t testing.TB, srvs ...*dns.Server) {
	t.Helper()
	for _, s := range srvs {
		started := make(chan struct{})
		s.NotifyStartedFunc = func() { close(started) }
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.ActivateAndServe() // returns when shut down
		}()
		<-started
		t.Cleanup(func() {
			s.Shutdown()
			<-done
		})
	}
}

// clock is a settable clock for cache and inventory times.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testServer is a running Agent DNS for one test.
type testServer struct {
	*Server
	dir   string
	addr  netip.AddrPort
	admin *admin.Client
}

type serverOpt func(*Options)

// startServer runs Agent DNS with the YAML config body; "UPSTREAM" in it
// is replaced by up's address. The state dir is dir ("" for a new one).
func startServer(t *testing.T, up *fakeUpstream, dir, body string, opts ...serverOpt) *testServer {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	body = strings.ReplaceAll(body, "UPSTREAM", up.addr.String())
	cat, err := templates.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("dns.yaml", []byte(body), cat)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	o := Options{Config: cfg, Dir: dir, Templates: cat, Log: testWriter{t}}
	for _, f := range opts {
		f(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	ts := &testServer{Server: s, dir: dir, admin: admin.NewClient(filepath.Join(dir, admin.SocketName))}
	ts.addr, _ = s.Addr(cfg.Listeners[0].Name)
	t.Cleanup(func() {
		ts.admin.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ts
}

func withClock(c *clock) serverOpt { return func(o *Options) { o.Now = c.Now } }

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// ask sends one query for name and type to addr and returns the answer.
func ask(t *testing.T, addr netip.AddrPort, name string, qtype uint16, edns, tcp bool) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	if edns {
		m.SetEdns0(1232, false)
	}
	c := &dns.Client{Timeout: 5 * time.Second}
	if tcp {
		c.Net = "tcp"
	}
	r, _, err := c.Exchange(m, addr.String())
	if err != nil {
		t.Fatalf("query %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return r
}

// summary is a query's answer reduced to what tests compare.
type summary struct {
	Rcode   string
	Answers []string
	EDE     string
}

func summarize(m *dns.Msg) summary {
	s := summary{Rcode: dns.RcodeToString[m.Rcode]}
	for _, rr := range m.Answer {
		s.Answers = append(s.Answers, strings.ReplaceAll(rr.String(), "\t", " "))
	}
	if opt := m.IsEdns0(); opt != nil {
		for _, o := range opt.Option {
			if e, ok := o.(*dns.EDNS0_EDE); ok {
				s.EDE = fmt.Sprintf("%d %s", e.InfoCode, e.ExtraText)
			}
		}
	}
	return s
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dns.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func inventoryFilter(p string) inventory.Filter { return inventory.Filter{Policy: p} }

func inventoryObservation() inventory.Observation {
	return inventory.Observation{Time: time.Now(), Status: inventory.Learned, Rule: "mode:learn", Type: "A",
		Addresses: []netip.Addr{netip.MustParseAddr("192.0.2.1")}}
}
