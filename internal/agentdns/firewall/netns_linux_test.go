package firewall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sidecarhq/sidecar/internal/testenv"
)

// netns is a network namespace made for one test: only its own loopback,
// so nothing a test sends inside it can leave.
type netns struct {
	name string
	nft  []string
}

func newNetns(t *testing.T) *netns {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.SkipOrFail(t, "needs root to create a network namespace")
	}
	for _, bin := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(bin); err != nil {
			testenv.SkipOrFail(t, bin+" not found (Debian: iproute2, nftables)")
		}
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails on Linux
	ns := &netns{name: "sidecar-fw-" + hex.EncodeToString(b)}
	run(t, "ip", "netns", "add", ns.name)
	t.Cleanup(func() { run(t, "ip", "netns", "del", ns.name) })
	run(t, "ip", "netns", "exec", ns.name, "ip", "link", "set", "lo", "up")
	ns.nft = []string{"ip", "netns", "exec", ns.name, "nft"}
	return ns
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// do runs fn on an OS thread that has joined the namespace; sockets fn
// opens stay in the namespace for their whole life.
func (n *netns) do(t *testing.T, fn func()) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			runtime.UnlockOSThread()
			return
		}
		defer orig.Close()
		target, err := os.Open("/run/netns/" + n.name)
		if err != nil {
			errc <- err
			runtime.UnlockOSThread()
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns: %w", err)
			runtime.UnlockOSThread()
			return
		}
		fn()
		// Back to the host's namespace before the thread is reused; if
		// that fails, keep the thread locked so the runtime discards it.
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns back: %w", err)
			return
		}
		runtime.UnlockOSThread()
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// echoDNS answers any UDP packet on pc with itself, QR bit set: enough to
// tell "answered" from "dropped".
func echoDNS(pc net.PacketConn) {
	buf := make([]byte, 512)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if n > 2 {
			buf[2] |= 0x80
		}
		pc.WriteTo(buf[:n], from) // a lost reply shows as a timeout in the test
	}
}

func (n *netns) counter(t *testing.T, name string) int {
	t.Helper()
	out := run(t, "ip", "netns", "exec", n.name, "nft", "list", "counter", "inet", DefaultTable, name)
	i := strings.Index(out, "packets ")
	if i < 0 {
		t.Fatalf("no packets in counter %s:\n%s", name, out)
	}
	v, err := strconv.Atoi(strings.Fields(out[i+len("packets "):])[0])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFenceInNamespace loads the enforce ruleset into a namespace of its
// own and checks each promise: the resolver answers; another resolver on
// 53 and DNS over TLS are dropped and counted; a raw IP is dropped until
// SetSink adds it.
func TestFenceInNamespace(t *testing.T) {
	ns := newNetns(t)
	rules, err := Ruleset(Options{Resolvers: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53")}, RawIP: true, SetTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Apply(ctx, rules, ns.nft); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if err := Apply(ctx, rules, ns.nft); err != nil {
		t.Fatalf("Apply a second time (must replace, not fail): %v", err)
	}

	var closers []func() error
	t.Cleanup(func() {
		for _, c := range closers {
			c()
		}
	})
	ns.do(t, func() {
		for _, a := range []string{"127.0.0.1:53", "127.0.0.2:53"} {
			pc, err := net.ListenPacket("udp", a)
			if err != nil {
				t.Fatal(err)
			}
			closers = append(closers, pc.Close)
			go echoDNS(pc)
		}
		for _, a := range []string{"127.0.0.2:853", "127.0.0.4:8080", "127.0.0.5:8080"} {
			ln, err := net.Listen("tcp", a)
			if err != nil {
				t.Fatal(err)
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

	udp := func(addr string) error {
		var err error
		ns.do(t, func() {
			var c net.Conn
			if c, err = net.Dial("udp", addr); err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Second))
			if _, err = c.Write([]byte("\x12\x34\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00")); err != nil {
				return
			}
			_, err = c.Read(make([]byte, 64))
		})
		return err
	}
	tcp := func(addr string) error {
		var err error
		ns.do(t, func() {
			var c net.Conn
			if c, err = net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
			}
		})
		return err
	}
	// A packet the output hook drops fails the send with EPERM (UDP) or
	// never gets an answer (TCP retries until the timeout).
	dropped := func(err error) bool {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, unix.EPERM)
	}

	if err := udp("127.0.0.1:53"); err != nil {
		t.Errorf("the assigned resolver did not answer: %v", err)
	}
	if err := udp("127.0.0.2:53"); !dropped(err) {
		t.Errorf("another resolver on 53: %v, want it dropped", err)
	}
	if err := tcp("127.0.0.2:853"); !dropped(err) {
		t.Errorf("DNS over TLS: %v, want it dropped", err)
	}
	if err := tcp("127.0.0.4:8080"); !dropped(err) {
		t.Errorf("raw IP before approval: %v, want it dropped", err)
	}
	sink := &SetSink{Nft: ns.nft, Timeout: time.Minute}
	if err := sink.Add(ctx, "p", []netip.Addr{netip.MustParseAddr("127.0.0.4"), netip.MustParseAddr("::ffff:127.0.0.4")}); err != nil {
		t.Fatalf("SetSink.Add: %v", err)
	}
	if err := tcp("127.0.0.4:8080"); err != nil {
		t.Errorf("approved address: %v, want a connection", err)
	}
	if err := tcp("127.0.0.5:8080"); !dropped(err) {
		t.Errorf("unapproved address: %v, want it dropped", err)
	}
	for name, min := range map[string]int{CounterDNS: 1, CounterDoT: 1, CounterRawIP: 2} {
		if got := ns.counter(t, name); got < min {
			t.Errorf("counter %s = %d, want at least %d", name, got, min)
		}
	}
	// A bad element is nft's error, word for word.
	bad := &SetSink{Nft: ns.nft, Table: "missing"}
	if err := bad.Add(ctx, "p", []netip.Addr{netip.MustParseAddr("127.0.0.9")}); !errors.Is(err, ErrNft) {
		t.Errorf("Add to a missing table = %v, want ErrNft", err)
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
