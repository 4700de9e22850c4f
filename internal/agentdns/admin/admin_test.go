package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

// stubControl answers from fixed values; the real Control is tested with
// the resolver in package agentdns.
type stubControl struct{ err error }

func (s stubControl) Status() Status { return Status{Inventory: 3} }
func (s stubControl) Inventory(f inventory.Filter) ([]inventory.Entry, error) {
	return []inventory.Entry{{Policy: f.Policy, Name: "a.example", Status: f.Status}}, s.err
}
func (s stubControl) Approve(p, n string) (inventory.Entry, error) {
	return inventory.Entry{Policy: p, Name: n, Status: inventory.Approved}, s.err
}
func (s stubControl) Deny(p, n string) (inventory.Entry, error) {
	return inventory.Entry{Policy: p, Name: n, Status: inventory.Denied}, s.err
}
func (s stubControl) SetMode(p, m string) (Policy, error) { return Policy{Name: p, Mode: m}, s.err }
func (s stubControl) SetDefault(p, a string) (Policy, error) {
	return Policy{Name: p, Default: a}, s.err
}
func (s stubControl) ExportBaseline(p string) (Baseline, error) {
	return Baseline{Version: 1, Policy: p}, s.err
}
func (s stubControl) ImportBaseline(p string, b Baseline) (Imported, error) {
	return Imported{Approved: len(b.Names)}, s.err
}

func serveStub(t *testing.T, c Control, logw *bytes.Buffer) *Client {
	t.Helper()
	path := filepath.Join(t.TempDir(), SocketName)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: Handler(c, logw)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln) // ErrServerClosed at Close
	}()
	cl := NewClient(path)
	t.Cleanup(func() {
		cl.Close()
		srv.Close()
		<-done
	})
	return cl
}

func TestRoundTrip(t *testing.T) {
	var logw bytes.Buffer
	c := serveStub(t, stubControl{}, &logw)
	ctx := context.Background()
	inv, err := c.Inventory(ctx, inventory.Filter{Policy: "p", Status: inventory.Held})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]inventory.Entry{{Policy: "p", Name: "a.example", Status: inventory.Held}}, inv); diff != "" {
		t.Errorf("Inventory (-want +got):\n%s", diff)
	}
	if e, err := c.Deny(ctx, "p", "x.example"); err != nil || e.Status != inventory.Denied || e.Name != "x.example" {
		t.Errorf("Deny = %+v, %v", e, err)
	}
	if p, err := c.SetMode(ctx, "p", "enforce"); err != nil || p.Mode != "enforce" {
		t.Errorf("SetMode = %+v, %v", p, err)
	}
	im, err := c.ImportBaseline(ctx, "p", Baseline{Version: 1, Names: []inventory.Decision{{Name: "a.example", Status: inventory.Approved}}})
	if err != nil || im.Approved != 1 {
		t.Errorf("ImportBaseline = %+v, %v", im, err)
	}
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		want    APIError
		wantLog string
	}{
		{"not found", fmt.Errorf("%w: %w", ErrNotFound, errors.New(`unknown policy "x"`)), APIError{404, "not_found", `unknown policy "x"`}, ""},
		{"invalid", fmt.Errorf("%w: mode %q", ErrInvalid, "y"), APIError{400, "invalid", `mode "y"`}, ""},
		{"internal stays inside", errors.New("write /secret/path: disk full"), APIError{500, "internal", "internal error; see the resolver's log"},
			"agent dns admin: write /secret/path: disk full\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logw bytes.Buffer
			c := serveStub(t, stubControl{err: tc.err}, &logw)
			_, err := c.Approve(context.Background(), "p", "a.example")
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("error %v is not an APIError", err)
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if logw.String() != tc.wantLog {
				t.Errorf("log = %q, want %q", logw.String(), tc.wantLog)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	var logw bytes.Buffer
	c := serveStub(t, stubControl{}, &logw)
	ctx := context.Background()
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/v1/approve", `{"policy":"p","name":"a","extra":1}`, 400},
		{"POST", "/v1/approve", `not json`, 400},
		{"GET", "/v1/inventory?status=bogus", ``, 400},
		{"GET", "/v1/approve", ``, 405},
		{"GET", "/v1/nothing", ``, 404},
	} {
		req, _ := http.NewRequestWithContext(ctx, tc.method, "http://agent-dns"+tc.path, bytes.NewBufferString(tc.body))
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s %s: status %d, want %d", tc.method, tc.path, tc.body, resp.StatusCode, tc.want)
		}
	}
}

func TestListen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SocketName)
	// A socket file left by a dead process is replaced.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, %v; want 0600", st.Mode(), err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := Listen(path); !errors.Is(err, ErrInUse) {
		t.Errorf("Listen on a live socket = %v, want ErrInUse", err)
	}
	// Nothing listening: the client says so plainly.
	c := NewClient(filepath.Join(dir, "none.sock"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Status(ctx); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Status with nothing listening = %v, want ErrNotRunning", err)
	}
}
