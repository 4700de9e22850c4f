package agentdns

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"
)

const (
	// maxInFlight bounds queries being answered at once per listener; a
	// UDP query past it is dropped (the client retries), as a busy
	// resolver would.
	maxInFlight = 1024
	// maxTCPConns bounds open TCP connections per listener.
	maxTCPConns = 256
	// tcpIdle closes a TCP connection with no query for this long.
	tcpIdle = 10 * time.Second
	// udpReaders is how many goroutines read each UDP socket.
	udpReaders = 2
)

// Buffers. A UDP reader reads into its own 64 KiB buffer and hands each
// query on in a small pooled one (queries are small; a UDP reply is at
// most 4096 bytes, see maxUDPReply), so queries in flight do not each pin
// 64 KiB. A TCP connection keeps a large pair for its life.
const smallBuf = 4096

var (
	smallPool = sync.Pool{New: func() any { b := make([]byte, smallBuf); return &b }}
	largePool = sync.Pool{New: func() any { b := make([]byte, 65535); return &b }}
)

// udpListener serves one UDP socket.
type udpListener struct {
	name string
	conn *net.UDPConn
	res  *Resolver
	sem  chan struct{}
}

func (l *udpListener) serve(ctx context.Context, wg *sync.WaitGroup) {
	for i := 0; i < udpReaders; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.read(ctx, wg)
		}()
	}
}

func (l *udpListener) read(ctx context.Context, wg *sync.WaitGroup) {
	rbuf := make([]byte, 65535)
	for {
		n, from, err := l.conn.ReadFromUDPAddrPort(rbuf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient error (an ICMP echo of an earlier send); keep serving
		}
		select {
		case l.sem <- struct{}{}:
		default:
			continue // overloaded: drop, the client will retry
		}
		in := smallPool.Get().(*[]byte)
		data := append((*in)[:0], rbuf[:n]...) // reallocates only past smallBuf
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-l.sem }()
			defer smallPool.Put(in)
			out := smallPool.Get().(*[]byte)
			defer smallPool.Put(out)
			reply := l.res.HandlePacket(ctx, Packet{Data: data, Client: from, Listener: l.name}, *out)
			if reply != nil {
				// A failed send is the client's loss, like a dropped packet.
				_, _ = l.conn.WriteToUDPAddrPort(reply, from)
			}
		}()
	}
}

// tcpListener serves one TCP socket: length-prefixed queries, answered in
// order, per connection.
type tcpListener struct {
	name  string
	ln    *net.TCPListener
	res   *Resolver
	sem   chan struct{}
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (l *tcpListener) serve(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.ln.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			select {
			case l.sem <- struct{}{}:
			default:
				c.Close() // too many connections
				continue
			}
			l.track(c, true)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-l.sem }()
				defer l.track(c, false)
				l.conn(ctx, c)
			}()
		}
	}()
}

func (l *tcpListener) track(c net.Conn, open bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if open {
		l.conns[c] = struct{}{}
	} else {
		delete(l.conns, c)
		c.Close() // done with it; a second close is harmless
	}
}

// closeConns ends every open connection (at shutdown).
func (l *tcpListener) closeConns() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close() // unblocks its reader; the goroutine then untracks it
	}
}

func (l *tcpListener) conn(ctx context.Context, c net.Conn) {
	from, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	bp := largePool.Get().(*[]byte)
	defer largePool.Put(bp)
	out := largePool.Get().(*[]byte)
	defer largePool.Put(out)
	var lenb [2]byte
	for {
		c.SetReadDeadline(time.Now().Add(tcpIdle)) // fails only once closed; the read then fails
		if _, err := io.ReadFull(c, lenb[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint16(lenb[:]))
		if _, err := io.ReadFull(c, (*bp)[:n]); err != nil {
			return
		}
		reply := l.res.HandlePacket(ctx, Packet{Data: (*bp)[:n], Client: from, Listener: l.name, TCP: true}, *out)
		if reply == nil {
			return
		}
		binary.BigEndian.PutUint16(lenb[:], uint16(len(reply)))
		c.SetWriteDeadline(time.Now().Add(tcpIdle)) // fails only once closed; the write then fails
		frame := net.Buffers{lenb[:], reply}
		if _, err := frame.WriteTo(c); err != nil {
			return
		}
	}
}
