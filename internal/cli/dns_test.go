package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// dnsUpstream is an in-process DNS server on loopback answering every A
// query with 192.0.2.1.
func dnsUpstream(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		if r.Question[0].Qtype == dns.TypeA {
			m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: r.Question[0].Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.ParseIP("192.0.2.1")}}
		}
		w.WriteMsg(m)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ActivateAndServe() // returns at Shutdown
	}()
	<-started
	t.Cleanup(func() {
		srv.Shutdown()
		<-done
	})
	return pc.LocalAddr().String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runDNS runs `sidecar dns ARGS...` and returns stdout and the error.
func runDNS(t *testing.T, ctx context.Context, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errb syncBuffer
	env := Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	cmd := newDNSCmd(env)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

func mustDNS(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := runDNS(t, context.Background(), stdin, args...)
	if err != nil {
		t.Fatalf("sidecar dns %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func digA(t *testing.T, addr, name string) string {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeA)
	r, _, err := (&dns.Client{Timeout: 5 * time.Second}).Exchange(m, addr)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Answer) == 0 {
		return dns.RcodeToString[r.Rcode]
	}
	return r.Answer[0].(*dns.A).A.String()
}

// privateDir is a fresh state dir with the mode statedir insists on.
func privateDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDNSVerbs(t *testing.T) {
	state := privateDir(t)
	dir := filepath.Join(state, "dns")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	up := dnsUpstream(t)
	cfg := fmt.Sprintf(`
listeners: [{name: main, address: "127.0.0.1:0"}]
upstreams: [{address: %s}]
policies:
  - name: sandbox
    clients: {listeners: [main]}
    mode: learn
    templates: [pypi]
`, up)
	if err := os.WriteFile(filepath.Join(dir, "dns.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	sd := "--state-dir=" + state

	ctx, cancel := context.WithCancel(context.Background())
	var serveErr syncBuffer
	done := make(chan error, 1)
	go func() {
		env := Env{Stdin: strings.NewReader(""), Stdout: &serveErr, Stderr: &serveErr, Getenv: func(string) string { return "" }}
		cmd := newDNSCmd(env)
		cmd.SetArgs([]string{"serve", sd})
		cmd.SetOut(&serveErr)
		cmd.SetErr(&serveErr)
		done <- cmd.ExecuteContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	re := regexp.MustCompile(`listener main on (\S+) `)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(serveErr.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve did not start:\n%s", serveErr.String())
	}

	if got := digA(t, addr, "learned.example"); got != "192.0.2.1" {
		t.Fatalf("learn mode answer %s", got)
	}
	if out := mustDNS(t, "", "mode", "sandbox", "enforce", sd); out != "policy sandbox: mode enforce, default deny, hold first seen true\n" {
		t.Errorf("mode: %q", out)
	}
	if got := digA(t, addr, "held.example"); got != "0.0.0.0" {
		t.Errorf("held answer %s", got)
	}
	if out := mustDNS(t, "", "approve", "held.example", "--policy", "sandbox", sd); out != "approved  held.example under sandbox (seen 1 times)\n" {
		t.Errorf("approve: %q", out)
	}
	if got := digA(t, addr, "held.example"); got != "192.0.2.1" {
		t.Errorf("after approve: %s", got)
	}
	if out := mustDNS(t, "", "deny", "learned.example", "--policy", "sandbox", sd); out != "denied  learned.example under sandbox (seen 1 times)\n" {
		t.Errorf("deny: %q", out)
	}
	if out := mustDNS(t, "", "default", "sandbox", "allow", sd); !strings.Contains(out, "default allow") {
		t.Errorf("default: %q", out)
	}
	inv := mustDNS(t, "", "inventory", "--status", "approved", sd)
	if !strings.Contains(inv, "sandbox  held.example  approved (by you)  2 ") || strings.Count(inv, "\n") != 2 {
		t.Errorf("inventory:\n%s", inv)
	}
	// The event log is flushed every 200 ms: wait for it.
	var logOut string
	for deadline := time.Now().Add(5 * time.Second); logOut == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		logOut = mustDNS(t, "", "log", "--event", "held", sd)
	}
	if !strings.Contains(logOut, "held       sandbox") || !strings.Contains(logOut, "held.example A  [hold_first_seen -> 0.0.0.0]") {
		t.Errorf("log --event held:\n%s", logOut)
	}
	base := mustDNS(t, "", "baseline", "export", "--policy", "sandbox", sd)
	if !strings.Contains(base, `"name": "held.example",`) || !strings.Contains(base, `"status": "denied"`) {
		t.Errorf("baseline export:\n%s", base)
	}
	if out := mustDNS(t, base, "baseline", "import", "-", sd); out != "imported into sandbox: 1 approved, 1 denied\n" {
		t.Errorf("baseline import: %q", out)
	}
	status := mustDNS(t, "", "status", sd)
	for _, want := range []string{"listener   main     " + addr + " (udp, tcp)", "policy     sandbox  mode enforce, default allow, hold first seen true, hold ttl 5s, block 0.0.0.0 ::, 2 allow and 0 deny patterns",
		"inventory  2 names", "stage      policy   3 queries, 1 answered here, 0 errors"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if out := mustDNS(t, "", "templates", "show", "pypi"); out != "# pypi version 1: Python Package Index (pip, uv)\n# import in dns.yaml with: templates: [pypi@1]\npypi.org\nfiles.pythonhosted.org\n" {
		t.Errorf("templates show: %q", out)
	}
	if out := mustDNS(t, "", "templates"); !strings.Contains(out, "openai         1        3      OpenAI API") {
		t.Errorf("templates:\n%s", out)
	}
	fw := mustDNS(t, "", "firewall", "--print", sd)
	for _, want := range []string{"table inet sidecar_dns {", "counter name dns_bypass drop", "# DNS=" + addr, "# FallbackDNS=", `#   "dns": []`} {
		if !strings.Contains(fw, want) {
			t.Errorf("firewall --print lacks %q:\n%s", want, fw)
		}
	}

	// Verify without a fence: the upstream answers directly, so that check
	// fails and the verb exits 1; the other two pass.
	out, err := runDNS(t, context.Background(), "", "verify", sd, "--timeout=500ms")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("verify error = %v, want exit 1", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "PASS  a first-seen name") || !strings.HasPrefix(lines[1], "FAIL  a query to an outside resolver ("+up+")") ||
		!strings.HasPrefix(lines[2], "PASS  an approved name (held.example) resolves") {
		t.Errorf("verify:\n%s", out)
	}

	if _, err := runDNS(t, context.Background(), "", "approve", "x.example", "--policy", "nope", sd); err == nil || err.Error() != `unknown policy "nope"` {
		t.Errorf("approve under unknown policy: %v", err)
	}
	if _, err := runDNS(t, context.Background(), "", "firewall", sd); err == nil || err.Error() != "pass --print to see the ruleset (and --apply to load it)" {
		t.Errorf("firewall without --print: %v", err)
	}
}

func TestDNSNotRunning(t *testing.T) {
	state := privateDir(t)
	_, err := runDNS(t, context.Background(), "", "inventory", "--state-dir="+state)
	if err == nil || !strings.HasPrefix(err.Error(), "agent dns is not running (no answer on "+filepath.Join(state, "dns", "admin.sock")) {
		t.Errorf("inventory without a resolver: %v", err)
	}
	_, err = runDNS(t, context.Background(), "", "serve", "--state-dir="+state)
	if err == nil || err.Error() != "no Agent DNS config at "+filepath.Join(state, "dns", "dns.yaml")+": write one (docs/agentdns.md has an example) or pass --config" {
		t.Errorf("serve without config: %v", err)
	}
}
