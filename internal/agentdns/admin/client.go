package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/sidecarhq/sidecar/internal/agentdns/inventory"
)

// ErrNotRunning reports that nothing serves the admin socket.
var ErrNotRunning = errors.New("agent dns is not running")

// APIError is an error the resolver answered with.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string { return e.Message }

// Client talks to a running resolver's admin socket.
type Client struct {
	socket string
	hc     *http.Client
}

// NewClient returns a client for the socket at path.
func NewClient(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}
	return &Client{socket: path, hc: &http.Client{Transport: tr}}
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://agent-dns"+path, &body)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ne *net.OpError
		if errors.As(err, &ne) && ne.Op == "dial" {
			return fmt.Errorf("%w (no answer on %s; start it with `sidecar dns serve`)", ErrNotRunning, c.socket)
		}
		return fmt.Errorf("admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var eb errorBody
		if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil {
			return &APIError{Status: resp.StatusCode, Code: "unknown", Message: resp.Status}
		}
		return &APIError{Status: resp.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message}
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode admin answer: %w", err)
	}
	return nil
}

// Status returns the resolver's listeners, policies and counters.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	return s, c.do(ctx, http.MethodGet, "/v1/status", nil, &s)
}

// Inventory lists entries that match f.
func (c *Client) Inventory(ctx context.Context, f inventory.Filter) ([]inventory.Entry, error) {
	q := url.Values{}
	if f.Policy != "" {
		q.Set("policy", f.Policy)
	}
	if f.Status != "" {
		q.Set("status", string(f.Status))
	}
	var out []inventory.Entry
	return out, c.do(ctx, http.MethodGet, "/v1/inventory?"+q.Encode(), nil, &out)
}

// Approve approves name under policy.
func (c *Client) Approve(ctx context.Context, policy, name string) (inventory.Entry, error) {
	var e inventory.Entry
	return e, c.do(ctx, http.MethodPost, "/v1/approve", nameRequest{policy, name}, &e)
}

// Deny denies name under policy.
func (c *Client) Deny(ctx context.Context, policy, name string) (inventory.Entry, error) {
	var e inventory.Entry
	return e, c.do(ctx, http.MethodPost, "/v1/deny", nameRequest{policy, name}, &e)
}

// SetMode switches policy to mode (learn or enforce).
func (c *Client) SetMode(ctx context.Context, policy, mode string) (Policy, error) {
	var p Policy
	return p, c.do(ctx, http.MethodPost, "/v1/mode", modeRequest{policy, mode}, &p)
}

// SetDefault sets policy's default action (allow or deny).
func (c *Client) SetDefault(ctx context.Context, policy, action string) (Policy, error) {
	var p Policy
	return p, c.do(ctx, http.MethodPost, "/v1/default", defaultRequest{policy, action}, &p)
}

// ExportBaseline returns policy's baseline.
func (c *Client) ExportBaseline(ctx context.Context, policy string) (Baseline, error) {
	var b Baseline
	return b, c.do(ctx, http.MethodGet, "/v1/baseline?"+url.Values{"policy": {policy}}.Encode(), nil, &b)
}

// ImportBaseline applies b to policy (b's own policy if empty).
func (c *Client) ImportBaseline(ctx context.Context, policy string, b Baseline) (Imported, error) {
	var im Imported
	return im, c.do(ctx, http.MethodPost, "/v1/baseline", importRequest{policy, b}, &im)
}
