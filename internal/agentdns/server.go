package agentdns

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"sync"
	"time"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/events"
	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

// How often buffered state reaches the disk.
const (
	eventFlushEvery     = 200 * time.Millisecond
	inventoryFlushEvery = time.Second
)

// Options configure a Server.
type Options struct {
	Config *config.Config
	// Dir holds the inventory, the event log, the overrides and the admin
	// socket: <state-dir>/dns. It must exist and be private (0700).
	Dir       string
	Templates *templates.Catalog
	// Sink, if set, learns the addresses answered under enforce-mode
	// policies before each answer is sent (see firewall.SetSink).
	Sink AddressSink
	// UpstreamTLS, if set, is the base TLS config for DNS-over-TLS
	// upstreams (tests use it to trust their own CA).
	UpstreamTLS *tls.Config
	// Log takes notes and errors for the person running the resolver.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server runs a Resolver: its sockets, its admin socket, and the timers
// that flush the event log and the inventory. Start it once; Close it
// once. Safe for concurrent use.
type Server struct {
	opts Options
	res  *Resolver
	inv  *inventory.Store
	ev   *events.Writer

	udp   []*udpListener
	tcp   []*tcpListener
	names []string
	admin *http.Server
	adm   net.Listener

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

// New opens the state in opts.Dir and builds the resolver. It binds
// nothing; Start does.
func New(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	pols, notes, err := newPolicies(opts.Config, opts.Templates, filepath.Join(opts.Dir, OverridesFile))
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintf(opts.Log, "agent dns: %s\n", n)
	}
	inv, err := inventory.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	e := opts.Config.Events
	ev, err := events.Open(opts.Dir, events.Options{MaxSizeMB: e.MaxSizeMB, MaxBackups: e.MaxBackups, MaxAgeDays: e.MaxAgeDays})
	if err != nil {
		inv.Close()
		return nil, err
	}
	res := newResolver(resolverDeps{cfg: opts.Config, policies: pols, inv: inv, events: ev, sink: opts.Sink, tls: opts.UpstreamTLS, now: opts.Now})
	return &Server{opts: opts, res: res, inv: inv, ev: ev}, nil
}

// Resolver returns the server's resolver.
func (s *Server) Resolver() *Resolver { return s.res }

// Start binds every listener (UDP and TCP on each address) and the admin
// socket, and starts serving. On error nothing stays bound.
func (s *Server) Start(ctx context.Context) (err error) {
	ctx, s.cancel = context.WithCancel(ctx)
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	for _, l := range s.opts.Config.Listeners {
		if err := s.bind(l); err != nil {
			return err
		}
	}
	adm, err := admin.Listen(filepath.Join(s.opts.Dir, admin.SocketName))
	if err != nil {
		if errors.Is(err, admin.ErrInUse) {
			return fmt.Errorf("%w: %w", ErrAlreadyRunning, err)
		}
		return err
	}
	s.adm = adm
	c := &control{res: s.res, events: s.ev, listeners: s.Listeners, now: s.opts.Now}
	s.admin = &http.Server{Handler: admin.Handler(c, s.opts.Log), ReadHeaderTimeout: 5 * time.Second}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		// Serve returns ErrServerClosed after Close; anything else ends
		// only the admin interface, which the log says.
		if err := s.admin.Serve(adm); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(s.opts.Log, "agent dns: admin interface stopped: %v\n", err)
		}
	}()
	go func() {
		defer s.wg.Done()
		s.flushLoop(ctx)
	}()
	for _, l := range s.udp {
		l.serve(ctx, &s.wg)
	}
	for _, l := range s.tcp {
		l.serve(ctx, &s.wg)
	}
	return nil
}

func (s *Server) bind(l config.Listener) error {
	// Port 0 (tests): TCP must take the port UDP got, so one address serves
	// both; that port may be taken for TCP, so try a few.
	tries := 1
	if l.Address.Port() == 0 {
		tries = 20
	}
	var err error
	for i := 0; i < tries; i++ {
		var uc *net.UDPConn
		uc, err = net.ListenUDP("udp", net.UDPAddrFromAddrPort(l.Address))
		if err != nil {
			return fmt.Errorf("listener %s: %w", l.Name, err)
		}
		port := uc.LocalAddr().(*net.UDPAddr).AddrPort().Port()
		var tl *net.TCPListener
		tl, err = net.ListenTCP("tcp", net.TCPAddrFromAddrPort(netip.AddrPortFrom(l.Address.Addr(), port)))
		if err != nil {
			uc.Close()
			continue
		}
		s.udp = append(s.udp, &udpListener{name: l.Name, conn: uc, res: s.res, sem: make(chan struct{}, maxInFlight)})
		s.tcp = append(s.tcp, &tcpListener{name: l.Name, ln: tl, res: s.res, sem: make(chan struct{}, maxTCPConns), conns: map[net.Conn]struct{}{}})
		s.names = append(s.names, l.Name)
		return nil
	}
	return fmt.Errorf("listener %s: %w", l.Name, err)
}

// Listeners returns the bound addresses, in config order.
func (s *Server) Listeners() []admin.Listener {
	out := make([]admin.Listener, len(s.udp))
	for i := range s.udp {
		out[i] = admin.Listener{Name: s.names[i], UDP: s.udp[i].conn.LocalAddr().String(), TCP: s.tcp[i].ln.Addr().String()}
	}
	return out
}

// Addr returns the address the named listener is bound to (UDP and TCP
// share it).
func (s *Server) Addr(name string) (netip.AddrPort, bool) {
	for i, n := range s.names {
		if n == name {
			return s.udp[i].conn.LocalAddr().(*net.UDPAddr).AddrPort(), true
		}
	}
	return netip.AddrPort{}, false
}

func (s *Server) flushLoop(ctx context.Context) {
	ev := time.NewTicker(eventFlushEvery)
	defer ev.Stop()
	inv := time.NewTicker(inventoryFlushEvery)
	defer inv.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ev.C:
			if err := s.ev.Flush(); err != nil {
				fmt.Fprintf(s.opts.Log, "agent dns: %v\n", err)
			}
		case <-inv.C:
			if err := s.inv.Flush(); err != nil {
				fmt.Fprintf(s.opts.Log, "agent dns: %v\n", err)
			}
		}
	}
}

// Close stops serving, waits for queries in flight, and flushes and closes
// the event log and the inventory.
func (s *Server) Close() error {
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
		}
		var errs []error
		for _, l := range s.udp {
			l.conn.Close() // unblocks its readers
		}
		for _, l := range s.tcp {
			l.ln.Close() // unblocks Accept
			l.closeConns()
		}
		if s.admin != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := s.admin.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop admin interface: %w", err))
			}
			cancel()
		}
		s.wg.Wait()
		s.res.close()
		errs = append(errs, s.ev.Close(), s.inv.Close())
		s.err = errors.Join(errs...)
	})
	return s.err
}

// Run serves until ctx ends, then closes.
func Run(ctx context.Context, opts Options) error {
	s, err := New(opts)
	if err != nil {
		return err
	}
	if err := s.Start(ctx); err != nil {
		return err
	}
	for _, l := range s.Listeners() {
		fmt.Fprintf(opts.Log, "agent dns: listener %s on %s (udp, tcp)\n", l.Name, l.UDP)
	}
	<-ctx.Done()
	return s.Close()
}
