package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// client speaks to one daemon: exec over keep-alive connections, status over a
// connection of its own so that it leaves nothing idle behind.
type client struct {
	base   string
	token  string
	exec   *http.Client
	status *http.Client
}

// newClient keeps up to conns idle connections, so a closed loop of conns workers
// reuses its connections instead of dialing.
func newClient(base, token string, conns int) *client {
	return &client{
		base:  base,
		token: token,
		exec: &http.Client{
			Timeout: 60 * time.Second, // a hang guard, far above any round trip here
			Transport: &http.Transport{
				Proxy:               nil,
				MaxIdleConns:        conns,
				MaxIdleConnsPerHost: conns,
				IdleConnTimeout:     5 * time.Minute,
				DisableCompression:  true,
			},
		},
		status: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		},
	}
}

// closeIdle closes the exec connections that are not in use.
func (c *client) closeIdle() { c.exec.CloseIdleConnections() }

// execOp returns an op that runs command through POST /v1/exec and requires exit 0.
func (c *client) execOp(command string) op {
	body, _ := json.Marshal(map[string]string{"command": command}) // cannot fail for a string map
	return func(ctx context.Context) error {
		var resp struct {
			ExitCode *int   `json:"exit_code"`
			Output   string `json:"output"`
		}
		if err := c.do(ctx, c.exec, http.MethodPost, "/v1/exec", body, &resp); err != nil {
			return err
		}
		if resp.ExitCode == nil || *resp.ExitCode != 0 {
			return fmt.Errorf("exec %q: exit code %v, output %q", command, resp.ExitCode, resp.Output)
		}
		return nil
	}
}

// daemonStatus is the part of GET /v1/status the resource check reads.
type daemonStatus struct {
	PID        int `json:"pid"`
	Goroutines int `json:"goroutines"`
}

func (c *client) daemonStatus(ctx context.Context) (daemonStatus, error) {
	var resp struct {
		Daemon *daemonStatus `json:"daemon"`
	}
	if err := c.do(ctx, c.status, http.MethodGet, "/v1/status", nil, &resp); err != nil {
		return daemonStatus{}, err
	}
	if resp.Daemon == nil {
		return daemonStatus{}, fmt.Errorf("GET /v1/status: no \"daemon\" object")
	}
	return *resp.Daemon, nil
}

func (c *client) do(ctx context.Context, hc *http.Client, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	// Read to the end so the connection goes back to the pool.
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d: %.200s", method, path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}
