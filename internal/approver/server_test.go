package approver

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sidecarhq/sidecar/internal/approval"
)

// hangGuard bounds every wait; it only fires when a test is broken.
const hangGuard = 20 * time.Second

// startServer listens in a fresh directory and serves until the test ends.
func startServer(t *testing.T, now func() time.Time) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "approver-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := Listen(filepath.Join(dir, SocketName), Options{PID: 42, Workspace: "/work/ws", Now: now})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// dial attaches an approver and waits until the server counts it.
func dial(t *testing.T, s *Server) *Conn {
	t.Helper()
	before := s.Attached()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c, err := Dial(ctx, s.Path())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	waitFor(t, func() bool { return s.Attached() > before })
	return c
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// next reads the next message, bounded by the hang guard.
func next(t *testing.T, c *Conn) Message {
	t.Helper()
	type res struct {
		m   Message
		err error
	}
	ch := make(chan res, 1)
	go func() { m, err := c.Next(); ch <- res{m, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Next: %v", r.err)
		}
		return r.m
	case <-time.After(hangGuard):
		t.Fatal("no message from the daemon")
	}
	return Message{}
}

// ask runs s.Ask in the background.
func ask(ctx context.Context, s *Server, req approval.Request) <-chan approval.Answer {
	ch := make(chan approval.Answer, 1)
	go func() { ch <- s.Ask(ctx, req) }()
	return ch
}

func receive(t *testing.T, ch <-chan approval.Answer) approval.Answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(hangGuard):
		t.Fatal("Ask did not return")
	}
	return approval.Answer{}
}

func request(id, command string, at time.Time) approval.Request {
	return approval.Request{ID: id, Client: "127.0.0.1:5000", Session: "default", Cwd: "/work/ws",
		Command: command, Why: "not on the safe list: make", Timeout: 5 * time.Minute, At: at}
}

func TestAskAnsweredByApprover(t *testing.T) {
	t0 := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	now := t0.Add(1500 * time.Millisecond)
	s := startServer(t, func() time.Time { return now })
	c := dial(t, s)
	if diff := cmp.Diff(Message{Type: TypeHello, Version: Version, PID: 42, Workspace: "/work/ws"}, c.Hello); diff != "" {
		t.Errorf("hello (-want +got):\n%s", diff)
	}

	got := ask(context.Background(), s, request("req-1", "make test", t0))
	want := Message{Type: TypePending, Request: &Pending{ID: 1, RequestID: "req-1", Client: "127.0.0.1:5000",
		Session: "default", Cwd: "/work/ws", Command: "make test", Why: "not on the safe list: make",
		TimeoutMS: 300000, Received: t0, AgeMS: 1500}}
	if diff := cmp.Diff(want, next(t, c)); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if err := c.Send(Message{Type: TypeAnswer, ID: 1, Choice: approval.ChoiceAlways}); err != nil {
		t.Fatal(err)
	}
	// The resolved message may come before or after the ack.
	msgs := []Message{next(t, c), next(t, c)}
	wantMsgs := []Message{{Type: TypeAnswered, ID: 1},
		{Type: TypeResolved, ID: 1, Outcome: OutcomeApproved, Why: "answered in sidecar approve"}}
	if diff := cmp.Diff(wantMsgs, msgs, cmpopts.SortSlices(func(a, b Message) bool { return a.Type < b.Type })); diff != "" {
		t.Errorf("messages after the answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(approval.Answer{Approved: true, Approval: approval.ApprovalUser, Always: true}, receive(t, got)); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

// TestSeveralPending: requests wait at once; an approver that attaches late
// sees them all, oldest first, with their ages, and answers them in any
// order.
func TestSeveralPending(t *testing.T) {
	t0 := time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC)
	s := startServer(t, func() time.Time { return t0.Add(10 * time.Second) })
	first := ask(context.Background(), s, request("req-a", "make a", t0))
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) == 1 })
	second := ask(context.Background(), s, request("req-b", "make b", t0.Add(4*time.Second)))
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) == 2 })

	c := dial(t, s)
	var ages []int64
	var commands []string
	for range 2 {
		m := next(t, c)
		commands = append(commands, m.Request.Command)
		ages = append(ages, m.Request.AgeMS)
	}
	if diff := cmp.Diff([]string{"make a", "make b"}, commands); diff != "" {
		t.Errorf("snapshot order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{10000, 6000}, ages); diff != "" {
		t.Errorf("ages (-want +got):\n%s", diff)
	}
	if err := c.Send(Message{Type: TypeList}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m.Type != TypeList || len(m.Requests) != 2 || m.Requests[1].RequestID != "req-b" {
		t.Errorf("list = %+v, want both requests", m)
	}
	if err := c.Send(Message{Type: TypeAnswer, ID: 2, Choice: approval.ChoiceReason, Reason: "use \x1b[31mmake check\u202e instead"}); err != nil {
		t.Fatal(err)
	}
	wantB := approval.Answer{Approval: approval.ApprovalUser, Reason: "the person declined: use [31mmake check instead",
		PersonReason: "use [31mmake check instead"}
	if diff := cmp.Diff(wantB, receive(t, second)); diff != "" {
		t.Errorf("second answer (-want +got):\n%s", diff)
	}
	if err := c.Send(Message{Type: TypeAnswer, ID: 1, Choice: approval.ChoiceOnce}); err != nil {
		t.Fatal(err)
	}
	if a := receive(t, first); !a.Approved || a.Always {
		t.Errorf("first answer = %+v, want approved once", a)
	}
}

// TestWithdrawn: a request answered elsewhere goes away, and the approver
// is told where; an answer to it then is refused.
func TestWithdrawn(t *testing.T) {
	s := startServer(t, nil)
	c := dial(t, s)
	ctx, cancel := context.WithCancelCause(context.Background())
	got := ask(ctx, s, request("req-1", "make", time.Time{}))
	if m := next(t, c); m.Type != TypePending {
		t.Fatalf("got %+v, want pending", m)
	}
	cancel(&approval.Withdrawn{Why: "answered at the daemon's terminal: approved"})
	if a := receive(t, got); a.Approval != approval.ApprovalCancelled || a.Approved {
		t.Errorf("answer = %+v, want cancelled", a)
	}
	want := Message{Type: TypeResolved, ID: 1, Outcome: OutcomeWithdrawn, Why: "answered at the daemon's terminal: approved"}
	if diff := cmp.Diff(want, next(t, c)); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if err := c.Send(Message{Type: TypeAnswer, ID: 1, Choice: approval.ChoiceOnce}); err != nil {
		t.Fatal(err)
	}
	want = Message{Type: TypeError, ID: 1, Message: "request 1 is not pending (answered elsewhere, or gone)"}
	if diff := cmp.Diff(want, next(t, c)); diff != "" {
		t.Errorf("late answer (-want +got):\n%s", diff)
	}
}

func TestRefusedMessages(t *testing.T) {
	s := startServer(t, nil)
	c := dial(t, s)
	tests := []struct {
		send string
		want Message
	}{
		{`{"type":"answer","id":9,"choice":"maybe"}`, Message{Type: TypeError, ID: 9, Message: `choice "maybe" is not one of y, a, n, d`}},
		{`{"type":"shutdown"}`, Message{Type: TypeError, Message: `unknown message type "shutdown"`}},
		{`{"type":"list","extra":1}`, Message{Type: TypeError, Message: "not a protocol message"}},
		{`not json`, Message{Type: TypeError, Message: "not a protocol message"}},
	}
	for _, tt := range tests {
		if _, err := c.c.Write([]byte(tt.send + "\n")); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, next(t, c)); diff != "" {
			t.Errorf("reply to %s (-want +got):\n%s", tt.send, diff)
		}
	}
}

func TestCloseAnswersNo(t *testing.T) {
	s := startServer(t, nil)
	got := ask(context.Background(), s, request("req-1", "make", time.Time{}))
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := approval.Answer{Approval: approval.ApprovalNoTTY, Reason: "the approver socket is closed"}
	if diff := cmp.Diff(want, receive(t, got)); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, s.Ask(context.Background(), request("req-2", "make", time.Time{}))); diff != "" {
		t.Errorf("answer after Close (-want +got):\n%s", diff)
	}
	if _, err := os.Lstat(s.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket still there after Close: %v", err)
	}
}

func TestChangedOnAttachAndDetach(t *testing.T) {
	s := startServer(t, nil)
	changed := s.Changed()
	c := dial(t, s)
	select {
	case <-changed:
	case <-time.After(hangGuard):
		t.Fatal("Changed not closed on attach")
	}
	changed = s.Changed()
	c.Close()
	select {
	case <-changed:
	case <-time.After(hangGuard):
		t.Fatal("Changed not closed on detach")
	}
	waitFor(t, func() bool { return s.Attached() == 0 })
}

func TestListen(t *testing.T) {
	dir := t.TempDir()
	t.Run("socket-is-owner-only", func(t *testing.T) {
		s := startServer(t, nil)
		info, err := os.Lstat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode()&fs.ModeSocket == 0 || info.Mode().Perm() != 0o600 {
			t.Errorf("socket mode = %v, want a socket with 0600", info.Mode())
		}
	})
	t.Run("stale-socket-replaced", func(t *testing.T) {
		path := filepath.Join(dir, "stale.sock")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close() // the file stays; nobody listens: a daemon that died
		s, err := Listen(path, Options{})
		if err != nil {
			t.Fatalf("Listen over a stale socket: %v", err)
		}
		s.Close()
	})
	t.Run("live-socket-in-use", func(t *testing.T) {
		s := startServer(t, nil)
		if _, err := Listen(s.Path(), Options{}); !errors.Is(err, ErrInUse) {
			t.Errorf("Listen on a live socket: %v, want ErrInUse", err)
		}
	})
	t.Run("regular-file-kept", func(t *testing.T) {
		path := filepath.Join(dir, "file.sock")
		if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Listen(path, Options{}); !errors.Is(err, ErrNotSocket) {
			t.Errorf("Listen on a regular file: %v, want ErrNotSocket", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "mine" {
			t.Error("the file was changed")
		}
	})
	t.Run("dial-nothing", func(t *testing.T) {
		_, err := Dial(context.Background(), filepath.Join(dir, "none.sock"))
		if err == nil || !strings.Contains(err.Error(), "connect to the daemon's approver socket") {
			t.Errorf("Dial with no daemon: %v", err)
		}
	})
}
