package approver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/sidecarhq/sidecar/internal/approval"
)

// SocketName is the approver socket's name in the state directory.
const SocketName = "approve.sock"

var (
	// ErrInUse reports that another daemon already listens on the socket.
	ErrInUse = errors.New("another Sidecar daemon is listening on the approver socket")
	// ErrNotSocket reports a socket path taken by something else.
	ErrNotSocket = errors.New("the approver socket path exists and is not a socket")
	// ErrForeignPeer reports a connection from another user.
	ErrForeignPeer = errors.New("the connecting process runs as another user")
)

const (
	maxLine    = 64 << 10        // longest message accepted
	writeWait  = 2 * time.Second // a client that cannot take a line in this time is dropped
	staleProbe = 500 * time.Millisecond
)

// Options configure a Server.
type Options struct {
	PID       int    // shown to approvers in hello
	Workspace string // shown to approvers in hello
	Logger    *slog.Logger
	Now       func() time.Time
}

// Server is the daemon's end of the approver socket. It implements
// approval.AttachedAsker: Ask keeps a request pending until an attached
// approver answers it or the caller withdraws it. Create it with Listen,
// run Serve, and Close it; Ask after Close answers no at once.
type Server struct {
	ln     *net.UnixListener
	path   string
	uid    int
	hello  Message
	logger *slog.Logger
	now    func() time.Time
	done   chan struct{} // closed by Close
	conns  sync.WaitGroup

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]*pending
	clients map[*client]struct{}
	changed chan struct{}
	closed  bool
}

type pending struct {
	info   Pending
	answer chan approval.Answer // buffered: the one answer, sent once
}

// client is one attached approver. Writes are serialized by mu and bounded
// by writeWait.
type client struct {
	c  *net.UnixConn
	mu sync.Mutex
}

// Listen creates the socket at path (mode 0600) and returns a Server that
// has not started serving. A stale socket left by a daemon that died is
// removed; a live one is ErrInUse, and anything else at path ErrNotSocket.
func Listen(path string, opts Options) (*Server, error) {
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on approver socket: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	// The state directory is 0700 already; the socket is made owner-only
	// too, in case the directory is ever loosened.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict approver socket: %w", err)
	}
	s := &Server{
		ln: ln, path: path, uid: os.Getuid(),
		hello:   Message{Type: TypeHello, Version: Version, PID: opts.PID, Workspace: opts.Workspace},
		logger:  opts.Logger,
		now:     opts.Now,
		done:    make(chan struct{}),
		pending: make(map[uint64]*pending),
		clients: make(map[*client]struct{}),
		changed: make(chan struct{}),
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// clearStale removes a socket at path that nobody listens on.
func clearStale(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("check approver socket: %w", err)
	case info.Mode()&fs.ModeSocket == 0:
		return fmt.Errorf("%w: %s", ErrNotSocket, path)
	}
	if c, err := net.DialTimeout("unix", path, staleProbe); err == nil {
		c.Close()
		return fmt.Errorf("%w: %s", ErrInUse, path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale approver socket: %w", err)
	}
	return nil
}

// Path returns the socket's path.
func (s *Server) Path() string { return s.path }

// Serve accepts approvers until Close, then returns nil.
func (s *Server) Serve() error {
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			select {
			case <-s.done:
				return nil
			default:
			}
			return fmt.Errorf("accept approver: %w", err)
		}
		// Counted under mu, where Close marks the server closed before it
		// waits: a connection accepted as Close runs is either counted
		// before the wait or closed here, never added during it.
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close() // nothing was read from it
			return nil
		}
		s.conns.Add(1)
		s.mu.Unlock()
		go s.handle(c)
	}
}

// Close stops accepting, disconnects every approver, waits for their
// handlers and answers every pending Ask no.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	clients := slices.Collect(maps.Keys(s.clients))
	s.mu.Unlock()
	err := s.ln.Close()
	for _, cl := range clients {
		cl.c.Close() // ends its handler's read
	}
	s.conns.Wait()
	if err != nil {
		return fmt.Errorf("close approver socket: %w", err)
	}
	return nil
}

// Attached reports how many approvers are attached.
func (s *Server) Attached() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// Changed returns a channel closed the next time an approver attaches or
// detaches.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// signalLocked wakes Changed's waiters. s.mu must be held.
func (s *Server) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Ask puts req to every attached approver (and every one that attaches
// while it waits) and returns the first answer. It returns ApprovalCancelled
// when ctx ends first, telling the approvers why (a *approval.Withdrawn
// cause), and ApprovalNoTTY once the server is closed.
func (s *Server) Ask(ctx context.Context, req approval.Request) approval.Answer {
	at := req.At
	if at.IsZero() {
		at = s.now()
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return closedAnswer()
	}
	s.nextID++
	p := &pending{answer: make(chan approval.Answer, 1), info: Pending{
		ID: s.nextID, RequestID: req.ID, Client: req.Client, Session: req.Session, Cwd: req.Cwd,
		Command: req.Command, Why: req.Why, TimeoutMS: req.Timeout.Milliseconds(), Received: at,
	}}
	s.pending[p.info.ID] = p
	clients := slices.Collect(maps.Keys(s.clients))
	s.mu.Unlock()
	s.broadcast(clients, Message{Type: TypePending, Request: s.withAge(p.info)})

	select {
	case a := <-p.answer:
		outcome := OutcomeDenied
		if a.Approved {
			outcome = OutcomeApproved
		}
		s.resolve(p, outcome, "answered in sidecar approve")
		return a
	case <-ctx.Done():
		why := "the request was cancelled"
		var w *approval.Withdrawn
		if errors.As(context.Cause(ctx), &w) {
			why = w.Why
		}
		s.resolve(p, OutcomeWithdrawn, why)
		return approval.Answer{Approval: approval.ApprovalCancelled,
			Reason: "the request ended before an attached approver answered", Err: ctx.Err()}
	case <-s.done:
		return closedAnswer()
	}
}

func closedAnswer() approval.Answer {
	return approval.Answer{Approval: approval.ApprovalNoTTY, Reason: "the approver socket is closed"}
}

// resolve removes p, if still pending, and tells every approver.
func (s *Server) resolve(p *pending, outcome, why string) {
	s.mu.Lock()
	delete(s.pending, p.info.ID)
	clients := slices.Collect(maps.Keys(s.clients))
	s.mu.Unlock()
	s.broadcast(clients, Message{Type: TypeResolved, ID: p.info.ID, Outcome: outcome, Why: why})
}

// withAge returns a copy of info with its age as of now.
func (s *Server) withAge(info Pending) *Pending {
	info.AgeMS = s.now().Sub(info.Received).Milliseconds()
	return &info
}

// snapshotLocked lists the pending requests, oldest first. s.mu must be
// held.
func (s *Server) snapshotLocked() []Pending {
	out := make([]Pending, 0, len(s.pending))
	for _, id := range slices.Sorted(maps.Keys(s.pending)) {
		out = append(out, *s.withAge(s.pending[id].info))
	}
	return out
}

func (s *Server) broadcast(clients []*client, m Message) {
	for _, cl := range clients {
		if err := cl.send(m); err != nil {
			s.logger.Warn("approver dropped", "err", err)
			cl.c.Close() // its handler sees the read fail and detaches it
		}
	}
}

// handle serves one connection: check the peer, say hello, list what is
// pending, then take answers until the approver goes away.
func (s *Server) handle(c *net.UnixConn) {
	defer s.conns.Done()
	defer c.Close()
	uid, err := peerUID(c)
	if err == nil && uid != s.uid {
		err = fmt.Errorf("%w (uid %d)", ErrForeignPeer, uid)
	}
	if err != nil {
		s.logger.Warn("approver refused", "err", err)
		refused := &client{c: c}
		_ = refused.send(Message{Type: TypeError, Message: "refused: only the user running the daemon may attach"}) // best effort before closing
		return
	}
	cl := &client{c: c}
	// Hold the client's writes until hello and the snapshot are out, so a
	// request that arrives meanwhile is announced after them.
	cl.mu.Lock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cl.mu.Unlock()
		return
	}
	s.clients[cl] = struct{}{}
	s.signalLocked()
	snapshot := s.snapshotLocked()
	s.mu.Unlock()
	err = cl.sendLocked(s.hello)
	for i := 0; err == nil && i < len(snapshot); i++ {
		err = cl.sendLocked(Message{Type: TypePending, Request: &snapshot[i]})
	}
	cl.mu.Unlock()
	defer s.detach(cl)
	if err != nil {
		return
	}
	s.read(cl)
}

func (s *Server) detach(cl *client) {
	s.mu.Lock()
	delete(s.clients, cl)
	s.signalLocked()
	s.mu.Unlock()
}

// read takes the approver's messages until it goes away.
func (s *Server) read(cl *client) {
	sc := bufio.NewScanner(cl.c)
	sc.Buffer(make([]byte, 4096), maxLine)
	for sc.Scan() {
		var m Message
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			if cl.send(Message{Type: TypeError, Message: "not a protocol message"}) != nil {
				return
			}
			continue
		}
		var reply Message
		switch m.Type {
		case TypeAnswer:
			reply = s.answer(m)
		case TypeList:
			s.mu.Lock()
			reply = Message{Type: TypeList, Requests: s.snapshotLocked()}
			s.mu.Unlock()
		default:
			reply = Message{Type: TypeError, Message: fmt.Sprintf("unknown message type %q", m.Type)}
		}
		if cl.send(reply) != nil {
			return
		}
	}
}

// answer hands an approver's answer to the waiting Ask, if the request
// is still pending.
func (s *Server) answer(m Message) Message {
	switch m.Choice {
	case approval.ChoiceOnce, approval.ChoiceAlways, approval.ChoiceNo, approval.ChoiceReason:
	default:
		return Message{Type: TypeError, ID: m.ID, Message: fmt.Sprintf("choice %q is not one of y, a, n, d", m.Choice)}
	}
	s.mu.Lock()
	p := s.pending[m.ID]
	delete(s.pending, m.ID)
	s.mu.Unlock()
	if p == nil {
		return Message{Type: TypeError, ID: m.ID, Message: fmt.Sprintf("request %d is not pending (answered elsewhere, or gone)", m.ID)}
	}
	p.answer <- approval.AnswerFor(m.Choice, m.Reason)
	return Message{Type: TypeAnswered, ID: m.ID}
}

func (cl *client) send(m Message) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.sendLocked(m)
}

func (cl *client) sendLocked(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode approver message: %w", err)
	}
	if err := cl.c.SetWriteDeadline(time.Now().Add(writeWait)); err != nil {
		return fmt.Errorf("write to approver: %w", err)
	}
	if _, err := cl.c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to approver: %w", err)
	}
	return nil
}
