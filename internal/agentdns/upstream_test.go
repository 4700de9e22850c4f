package agentdns

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/testenv"
)

// bigTXT answers TXT with 40 records (about 2.5 KB): over UDP it sets TC
// and sends none, as a real server does past the client's buffer.
func bigTXT(w dns.ResponseWriter, r *dns.Msg) *dns.Msg {
	if _, udp := w.RemoteAddr().(*net.UDPAddr); udp {
		m := new(dns.Msg)
		m.SetReply(r)
		m.Truncated = true
		return m
	}
	return bigAnswer(r)
}

// bigAnswer answers with 40 TXT records.
func bigAnswer(r *dns.Msg) *dns.Msg {
	m := new(dns.Msg)
	m.SetReply(r)
	q := r.Question[0]
	for i := 0; i < 40; i++ {
		m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60},
			Txt: []string{fmt.Sprintf("record %02d %s", i, strings.Repeat("x", 40))}})
	}
	return m
}

func TestTCPFallbackOnTruncation(t *testing.T) {
	up := startUpstream(t, bigTXT)
	s := startServer(t, up, "", learnConfig)

	// A UDP client with a 1232-byte buffer gets TC from Agent DNS (the
	// full answer does not fit), then asks again over TCP and gets it all.
	udp := ask(t, s.addr, "big.example", dns.TypeTXT, true, false)
	if !udp.Truncated || udp.Rcode != dns.RcodeSuccess {
		t.Errorf("UDP answer: truncated %v rcode %s; want TC set", udp.Truncated, dns.RcodeToString[udp.Rcode])
	}
	tcp := ask(t, s.addr, "big.example", dns.TypeTXT, true, true)
	if tcp.Truncated || len(tcp.Answer) != 40 {
		t.Errorf("TCP answer: truncated %v, %d records; want 40", tcp.Truncated, len(tcp.Answer))
	}
	// Upstream: one UDP attempt that came back truncated, one TCP retry;
	// the client's TCP retry was answered from the cache.
	if u, c := up.udpQ.Load(), up.tcpQ.Load(); u != 1 || c != 1 {
		t.Errorf("upstream saw %d UDP and %d TCP queries; want 1 and 1", u, c)
	}
}

func TestCacheExpiry(t *testing.T) {
	up := startUpstream(t, nil)
	clk := newClock()
	s := startServer(t, up, "", learnConfig, withClock(clk))
	ttl := func() uint32 {
		t.Helper()
		m := ask(t, s.addr, "c.example", dns.TypeA, true, false)
		return m.Answer[0].Header().Ttl
	}
	steps := []struct {
		advance  time.Duration
		wantTTL  uint32
		wantAsks int64
	}{
		{0, 30, 1},
		{10 * time.Second, 20, 1},
		{19 * time.Second, 1, 1},
		{time.Second, 30, 2}, // expired: asked again
	}
	for i, st := range steps {
		clk.Advance(st.advance)
		if got := ttl(); got != st.wantTTL || up.count() != st.wantAsks {
			t.Errorf("step %d: TTL %d, upstream asked %d times; want %d and %d", i, got, up.count(), st.wantTTL, st.wantAsks)
		}
	}
}

func TestUpstreamFailover(t *testing.T) {
	dead := startUpstream(t, func(dns.ResponseWriter, *dns.Msg) *dns.Msg { return nil }) // never answers
	good := startUpstream(t, nil)
	cfg := strings.Replace(learnConfig, "upstreams: [{address: UPSTREAM}]",
		"upstreams: [{address: UPSTREAM, timeout_ms: 200}, {address: "+good.addr.String()+"}]", 1)
	s := startServer(t, dead, "", cfg)
	got := summarize(ask(t, s.addr, "f.example", dns.TypeA, true, false))
	if diff := cmp.Diff(summary{Rcode: "NOERROR", Answers: []string{"f.example. 30 IN A 192.0.2.1"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if dead.count() != 1 || good.count() != 1 {
		t.Errorf("dead asked %d, good asked %d; want 1 and 1", dead.count(), good.count())
	}
}

func TestAllUpstreamsDownIsServfail(t *testing.T) {
	dead := startUpstream(t, func(dns.ResponseWriter, *dns.Msg) *dns.Msg { return nil })
	cfg := strings.Replace(learnConfig, "{address: UPSTREAM}", "{address: UPSTREAM, timeout_ms: 100}", 1)
	s := startServer(t, dead, "", cfg)
	got := summarize(ask(t, s.addr, "f.example", dns.TypeA, true, false))
	want := summary{Rcode: "SERVFAIL", EDE: "23 sidecar: upstream resolvers did not answer"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDNSOverTLSUpstream(t *testing.T) {
	cert, pool := selfSigned(t, "dot.test")
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64
	h := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		asked.Add(1)
		w.WriteMsg(defaultAnswer(w, r))
	})
	serve(t, &dns.Server{Listener: ln, Net: "tcp-tls", Handler: h})
	addr := ln.Addr().String()
	cfg := strings.Replace(learnConfig, "{address: UPSTREAM}", "{address: \"tls://"+addr+"\", server_name: dot.test}", 1)
	s := startServer(t, &fakeUpstream{}, "", cfg, func(o *Options) { o.UpstreamTLS = &tls.Config{RootCAs: pool} })
	got := summarize(ask(t, s.addr, "tls.example", dns.TypeA, true, false))
	if diff := cmp.Diff(summary{Rcode: "NOERROR", Answers: []string{"tls.example. 30 IN A 192.0.2.1"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("DoT upstream asked %d times", n)
	}
}

func selfSigned(t *testing.T, name string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestDnsmasqUpstream forwards to a real resolver from Debian: dnsmasq on
// a loopback port, answering from its own host records (it reaches
// nothing else: --no-resolv, no servers).
func TestDnsmasqUpstream(t *testing.T) {
	bin, err := exec.LookPath("dnsmasq")
	if err != nil {
		for _, p := range []string{"/usr/sbin/dnsmasq", "/sbin/dnsmasq"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		testenv.SkipOrFail(t, "dnsmasq binary not found; install Debian's dnsmasq-base (CI does) to run the real-upstream test")
	}
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte("192.0.2.53 real.example\n2001:db8::53 real.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := &fakeUpstream{addr: startDnsmasq(t, bin, dir, hosts)}
	s := startServer(t, up, "", learnConfig)
	tests := []struct {
		qtype uint16
		want  summary
	}{
		{dns.TypeA, summary{Rcode: "NOERROR", Answers: []string{"real.example. 45 IN A 192.0.2.53"}}},
		{dns.TypeAAAA, summary{Rcode: "NOERROR", Answers: []string{"real.example. 45 IN AAAA 2001:db8::53"}}},
	}
	for _, tc := range tests {
		got := summarize(ask(t, s.addr, "real.example", tc.qtype, true, false))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s via dnsmasq (-want +got):\n%s", dns.TypeToString[tc.qtype], diff)
		}
	}
	if _, err := s.admin.SetMode(context.Background(), "sandbox", "enforce"); err != nil {
		t.Fatal(err)
	}
	got := summarize(ask(t, s.addr, "new.example", dns.TypeA, true, false))
	if got.Answers[0] != "new.example. 7 IN A 0.0.0.0" {
		t.Errorf("held answer = %+v", got)
	}
}

// startDnsmasq runs dnsmasq on a free loopback port (UDP and TCP) and
// returns its address once it answers.
func startDnsmasq(t *testing.T, bin, dir, hosts string) netip.AddrPort {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		port := freePort(t)
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin, "--keep-in-foreground", "--no-daemon", "--no-resolv", "--no-hosts",
			"--addn-hosts="+hosts, "--listen-address=127.0.0.1", "--bind-interfaces", "--port="+fmt.Sprint(port),
			"--user=root", "--pid-file="+filepath.Join(dir, "pid"), "--log-facility=-", "--cache-size=0", "--local-ttl=45")
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() {
			cmd.Wait() // killed by cancel, or failed to bind: out says which
			close(exited)
		}()
		addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
		if waitDNS(addr, exited) {
			t.Cleanup(func() {
				cancel()
				<-exited
			})
			return addr
		}
		cancel()
		<-exited
		if !strings.Contains(out.String(), "in use") {
			t.Fatalf("dnsmasq did not start; log:\n%s", out)
		}
	}
	t.Fatal("dnsmasq found no free port in 5 tries")
	return netip.AddrPort{}
}

// freePort returns a loopback port free for both UDP and TCP just now.
func freePort(t *testing.T) uint16 {
	t.Helper()
	for {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		pc.Close()
		if err == nil {
			ln.Close()
			return uint16(port)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitDNS reports whether something answers DNS at addr before exited
// closes or 10 s pass.
func waitDNS(addr netip.AddrPort, exited <-chan struct{}) bool {
	m := new(dns.Msg)
	m.SetQuestion("ready.example.", dns.TypeA)
	c := &dns.Client{Timeout: 200 * time.Millisecond}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			return false
		default:
		}
		if _, _, err := c.Exchange(m, addr.String()); err == nil {
			return true
		}
	}
	return false
}
