// Package client speaks protocol 2 to a Sidecar daemon. The CLI's remote
// verbs, the demo and verify use it; it holds no policy of its own.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// Client talks to one daemon. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// New returns a client for the daemon at rawURL authenticating with tok.
func New(rawURL, tok string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("daemon URL %q: want http://HOST:PORT", rawURL)
	}
	return &Client{base: u, token: tok, http: &http.Client{}}, nil
}

// APIError is a non-2xx answer from the daemon.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("daemon answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Health calls GET /v1/health.
func (c *Client) Health(ctx context.Context) (protocol.Health, error) {
	var h protocol.Health
	err := c.do(ctx, http.MethodGet, "/v1/health", nil, &h)
	return h, err
}

// Status calls GET /v1/status.
func (c *Client) Status(ctx context.Context) (protocol.Status, error) {
	var s protocol.Status
	err := c.do(ctx, http.MethodGet, "/v1/status", nil, &s)
	return s, err
}

// Exec calls POST /v1/exec.
func (c *Client) Exec(ctx context.Context, req protocol.ExecRequest) (protocol.ExecResponse, error) {
	var r protocol.ExecResponse
	err := c.do(ctx, http.MethodPost, "/v1/exec", req, &r)
	return r, err
}

// Cancel calls POST /v1/cancel.
func (c *Client) Cancel(ctx context.Context, requestID string) (protocol.CancelResponse, error) {
	var r protocol.CancelResponse
	err := c.do(ctx, http.MethodPost, "/v1/cancel", protocol.CancelRequest{RequestID: requestID}, &r)
	return r, err
}

// Audit calls GET /v1/audit?limit=N.
func (c *Client) Audit(ctx context.Context, limit int) (protocol.AuditResponse, error) {
	var r protocol.AuditResponse
	err := c.do(ctx, http.MethodGet, "/v1/audit?limit="+strconv.Itoa(limit), nil, &r)
	return r, err
}

// Raw sends body as it is (for tests of the daemon's decoding) and returns
// the status and body.
func (c *Client) Raw(ctx context.Context, method, path string, body []byte, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if _, ok := req.Header["Authorization"]; !ok && c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, body)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("reach daemon at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e protocol.ErrorBody
		if json.Unmarshal(b, &e) != nil || e.Error.Code == "" {
			return &APIError{Status: resp.StatusCode, Code: "unexpected", Message: strings.TrimSpace(string(b))}
		}
		return &APIError{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// IsCode reports whether err is an APIError with the given code.
func IsCode(err error, code string) bool {
	var e *APIError
	return errors.As(err, &e) && e.Code == code
}
