package agentdns

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/config"
)

// udpPoolSize bounds the idle UDP sockets kept per upstream.
const udpPoolSize = 64

// upstream is one resolver to forward to. UDP sockets are reused (a
// connected socket per exchange in flight, idle ones pooled); TCP and TLS
// connections are made per exchange.
type upstream struct {
	addr    string
	tls     *tls.Config // nil: plain DNS
	timeout time.Duration
	pool    chan *dns.Conn
}

func newUpstream(u config.Upstream, base *tls.Config) *upstream {
	up := &upstream{addr: u.Address.String(), timeout: u.Timeout, pool: make(chan *dns.Conn, udpPoolSize)}
	if u.TLS {
		c := &tls.Config{MinVersion: tls.VersionTLS12}
		if base != nil {
			c = base.Clone()
		}
		c.ServerName = u.ServerName
		up.tls = c
	}
	return up
}

// exchange sends m and returns the answer: over TLS for a TLS upstream,
// else over UDP, and again over TCP if the UDP answer was truncated.
func (u *upstream) exchange(ctx context.Context, m *dns.Msg) (*dns.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	if u.tls != nil {
		return u.stream(ctx, m, "tcp-tls")
	}
	r, err := u.udp(ctx, m)
	if err != nil {
		return nil, err
	}
	if r.Truncated {
		return u.stream(ctx, m, "tcp")
	}
	return r, nil
}

func (u *upstream) udp(ctx context.Context, m *dns.Msg) (*dns.Msg, error) {
	var co *dns.Conn
	select {
	case co = <-u.pool:
	default:
		var d net.Dialer
		c, err := d.DialContext(ctx, "udp", u.addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", u.addr, err)
		}
		// Read with room to spare: some servers ignore the size we ask for.
		co = &dns.Conn{Conn: c, UDPSize: 4096}
	}
	deadline, _ := ctx.Deadline()
	co.SetDeadline(deadline) // a *net.UDPConn only fails here if closed; the write then fails too
	if err := co.WriteMsg(m); err != nil {
		co.Close()
		return nil, fmt.Errorf("send to %s: %w", u.addr, err)
	}
	for {
		r, err := co.ReadMsg()
		if err != nil {
			// The socket may still get the late answer: do not reuse it.
			co.Close()
			return nil, fmt.Errorf("read from %s: %w", u.addr, err)
		}
		// Answers to earlier, timed-out queries on a reused socket are
		// skipped, as are answers to some other question.
		if r.Id != m.Id || !sameQuestion(r, m) {
			continue
		}
		select {
		case u.pool <- co:
		default:
			co.Close()
		}
		return r, nil
	}
}

func (u *upstream) stream(ctx context.Context, m *dns.Msg, network string) (*dns.Msg, error) {
	c := &dns.Client{Net: network, TLSConfig: u.tls, Timeout: u.timeout}
	r, _, err := c.ExchangeContext(ctx, m, u.addr)
	if err != nil {
		return nil, fmt.Errorf("%s exchange with %s: %w", network, u.addr, err)
	}
	if !sameQuestion(r, m) {
		return nil, fmt.Errorf("%s exchange with %s: answer to another question", network, u.addr)
	}
	return r, nil
}

func (u *upstream) close() {
	for {
		select {
		case co := <-u.pool:
			co.Close() // idle socket; nothing in flight
		default:
			return
		}
	}
}

func sameQuestion(a, b *dns.Msg) bool {
	if len(a.Question) != 1 || len(b.Question) != 1 {
		return false
	}
	qa, qb := a.Question[0], b.Question[0]
	return qa.Qtype == qb.Qtype && qa.Qclass == qb.Qclass && equalFoldASCII(qa.Name, qb.Name)
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

var errNoUpstreams = errors.New("no upstreams configured")
