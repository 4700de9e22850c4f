package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/client"
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/protocol"
	"github.com/sidecarhq/sidecar/internal/runtime"
	"github.com/sidecarhq/sidecar/internal/runtime/host"
	"github.com/sidecarhq/sidecar/internal/session"
	"github.com/sidecarhq/sidecar/internal/token"
)

func TestMain(m *testing.M) {
	// lumberjack's pruning goroutine outlives Close (one per audit log);
	// nothing else may outlive a test.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("gopkg.in/natefinch/lumberjack%2ev2.(*Logger).millRun"))
}

// person answers prompts the way a test tells it to and remembers what it
// was asked. The real terminal prompt is tested in package approval; here
// only its answers matter.
type person struct {
	mu     sync.Mutex
	answer approval.Answer
	asked  []approval.Request
}

func (p *person) Ask(ctx context.Context, req approval.Request) approval.Answer {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	return p.answer
}

// failingAudit stands in for a disk that refuses writes, which a real log
// in a temp dir cannot be made to do when the tests run as root.
type failingAudit struct{}

func (failingAudit) Append(audit.Record) (audit.Record, error) {
	return audit.Record{}, errors.New("disk full")
}
func (failingAudit) Recent(int) ([]audit.Record, error) { return nil, errors.New("disk full") }
func (failingAudit) Summary() audit.Summary             { return audit.Summary{} }

type fixture struct {
	c         *client.Client
	person    *person
	workspace string
	state     string
}

// newFixture serves a Server built from real parts on a loopback port.
func newFixture(t *testing.T, mode policy.Mode, auditLog func(dir string) AuditLog) *fixture {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	classifier, err := policy.New(policy.Config{Mode: mode, Workspace: ws, StateDir: state, Home: "/nonexistent-home"})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := session.OpenStore(filepath.Join(state, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := token.LoadOrCreate(state, false)
	if err != nil {
		t.Fatal(err)
	}
	p := &person{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{
		Version: "test", Token: tok, Workspace: ws, Mode: mode,
		DefaultTimeout: 10 * time.Second, MaxTimeout: 20 * time.Second, MaxOutput: 1 << 20, MaxBody: 1 << 20, MaxConcurrent: 8,
		Policy: classifier, Approver: p, Audit: auditLog(state), Runtime: rt, Sessions: sessions,
		BaseEnv: session.BaseEnv(os.LookupEnv),
	}, ln.Addr().(*net.TCPAddr).Port)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	c, err := client.New("http://127.0.0.1:"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), tok.String())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: c, person: p, workspace: ws, state: state}
}

func realAudit(t *testing.T) func(string) AuditLog {
	return func(dir string) AuditLog {
		l, err := audit.Open(audit.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
}

func TestAskPath(t *testing.T) {
	tests := []struct {
		name    string
		answer  approval.Answer
		want    protocol.ExecResponse
		created bool
	}{
		{"approved", approval.Answer{Approved: true, Approval: "user"},
			protocol.ExecResponse{ExitCode: 0, Decision: "allow", Approval: "user"}, true},
		{"declined", approval.Answer{Approval: "user", Reason: "the person at the keyboard declined"},
			protocol.ExecResponse{ExitCode: 125, Decision: "deny", Approval: "user", Reason: "the person at the keyboard declined",
				Output: "Sidecar denied this command: the person at the keyboard declined\nDo not retry it verbatim: change the approach, or ask the person to allow it.\n"}, false},
		{"nobody answered", approval.Answer{Approval: "timeout", Reason: "nobody answered the approval prompt within 60s"},
			protocol.ExecResponse{ExitCode: 125, Decision: "deny", Approval: "timeout", Reason: "nobody answered the approval prompt within 60s",
				Output: "Sidecar denied this command: nobody answered the approval prompt within 60s\nDo not retry it verbatim: change the approach, or ask the person to allow it.\n"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, policy.ModeAsk, realAudit(t))
			f.person.answer = tc.answer
			got, err := f.c.Exec(context.Background(), protocol.ExecRequest{Command: "touch made", RequestID: "r1", Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			tc.want.RequestID, tc.want.Cwd = "r1", f.workspace
			opts := cmpopts.IgnoreFields(protocol.ExecResponse{}, "DurationMs", "Audit", "Rule")
			if diff := cmp.Diff(tc.want, got, opts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.Audit == nil {
				t.Error("no audit reference")
			}
			_, err = os.Stat(filepath.Join(f.workspace, "made"))
			if created := err == nil; created != tc.created {
				t.Errorf("file created %v, want %v", created, tc.created)
			}
			if len(f.person.asked) != 1 || f.person.asked[0].Command != "touch made" || f.person.asked[0].Cwd != f.workspace {
				t.Errorf("person was asked %+v", f.person.asked)
			}
		})
	}
}

func TestSafeCommandsNeverAsk(t *testing.T) {
	f := newFixture(t, policy.ModeAsk, realAudit(t))
	for _, cmd := range []string{"pwd", "ls -la", "echo hi", "git status"} {
		resp, err := f.c.Exec(context.Background(), protocol.ExecRequest{Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Decision != "allow" || resp.Approval != "policy" {
			t.Errorf("%q: %s by %s (%s)", cmd, resp.Decision, resp.Approval, resp.Reason)
		}
	}
	if len(f.person.asked) != 0 {
		t.Errorf("asked about safe commands: %+v", f.person.asked)
	}
}

func TestAuditFailureRunsNothing(t *testing.T) {
	f := newFixture(t, policy.ModeAllow, func(string) AuditLog { return failingAudit{} })
	_, err := f.c.Exec(context.Background(), protocol.ExecRequest{Command: "touch made"})
	if !client.IsCode(err, protocol.CodeAuditUnavailable) {
		t.Fatalf("want %s, got %v", protocol.CodeAuditUnavailable, err)
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "made")); err == nil {
		t.Error("the command ran without an audit record")
	}
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.Status != http.StatusServiceUnavailable {
		t.Errorf("status %d", apiErr.Status)
	}
}

// heldAudit is a real audit log that holds the first "allow" decision
// record in Append until release is closed, having closed reached: the
// window between the decision and the command's start, where a fsync
// takes its time.
type heldAudit struct {
	AuditLog
	once             sync.Once
	reached, release chan struct{}
}

func (h *heldAudit) Append(r audit.Record) (audit.Record, error) {
	if r.Event == audit.EventDecision && r.Decision == "allow" {
		h.once.Do(func() {
			close(h.reached)
			<-h.release
		})
	}
	return h.AuditLog.Append(r)
}

// TestCancelBeforeStart: a request cancelled after its decision was
// recorded but before the runtime started it runs nothing and is answered
// and recorded as cancelled (130), not as a command that could not start.
func TestCancelBeforeStart(t *testing.T) {
	held := &heldAudit{reached: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, policy.ModeAllow, func(dir string) AuditLog {
		held.AuditLog = realAudit(t)(dir)
		return held
	})
	type answer struct {
		resp protocol.ExecResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := f.c.Exec(context.Background(), protocol.ExecRequest{Command: "touch made", RequestID: "cancel-me"})
		done <- answer{resp, err}
	}()
	<-held.reached
	if _, err := f.c.Cancel(context.Background(), "cancel-me"); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	close(held.release)
	a := <-done
	const want = "Sidecar cancelled this command before it ran: cancelled by request\n"
	if a.err != nil || a.resp.ExitCode != runtime.ExitCancelled || a.resp.Output != want {
		t.Fatalf("answer %+v, %v; want exit %d, output %q", a.resp, a.err, runtime.ExitCancelled, want)
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "made")); err == nil {
		t.Error("a command cancelled before it started ran")
	}
	recs, err := f.c.Audit(context.Background(), 1)
	if err != nil || len(recs.Records) != 1 || recs.Records[0].ExitCode == nil || *recs.Records[0].ExitCode != runtime.ExitCancelled {
		t.Fatalf("last audit record %+v, %v; want the result with exit %d", recs, err, runtime.ExitCancelled)
	}
}

func TestNoAudit(t *testing.T) {
	f := newFixture(t, policy.ModeAllow, func(string) AuditLog { return nil })
	resp, err := f.c.Exec(context.Background(), protocol.ExecRequest{Command: "true"})
	if err != nil || resp.Audit != nil || resp.ExitCode != 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	a, err := f.c.Audit(context.Background(), 5)
	if err != nil || a.Enabled || len(a.Records) != 0 {
		t.Fatalf("%+v %v", a, err)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, path string
		want       bool
	}{
		{"/w", "/w", true},
		{"/w", "/w/a", true},
		{"/w", "/wx", false},
		{"/w", "/", false},
		{"/", "/etc", true},
	}
	for _, tc := range tests {
		if got := within(tc.root, tc.path); got != tc.want {
			t.Errorf("within(%q, %q) = %v", tc.root, tc.path, got)
		}
	}
}

func TestHostSet(t *testing.T) {
	hs := newHostSet(8765, []string{"Tunnel.Example", "::1", "box:9000"})
	for host, want := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:8765": true, "[::1]:8765": true,
		"tunnel.example": true, "tunnel.example:8765": true, "box:9000": true,
		"127.0.0.1:8766": false, "evil.example:8765": false, "": false, "127.0.0.1": false,
	} {
		if got := hs.allows(host); got != want {
			t.Errorf("allows(%q) = %v, want %v", host, got, want)
		}
	}
}
