package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

func errorCode(t *testing.T, body string) string {
	t.Helper()
	var e protocol.ErrorBody
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body is not JSON: %q", body)
	}
	if e.Error.Message == "" {
		t.Errorf("error %q has no message", e.Error.Code)
	}
	return e.Error.Code
}

func TestFrontDoorAndBadInput(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	marker := filepath.Join(d.Workspace, "ran")
	touch := `{"command":"touch ` + marker + `"}`
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		header     map[string]string
		wantStatus int
		wantCode   string
	}{
		{"no token", "POST", "/v1/exec", touch, map[string]string{"Authorization": ""}, 401, protocol.CodeUnauthorized},
		{"wrong token", "POST", "/v1/exec", touch, map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, 401, protocol.CodeUnauthorized},
		{"token prefix", "POST", "/v1/exec", touch, map[string]string{"Authorization": "Bearer " + d.Token[:32]}, 401, protocol.CodeUnauthorized},
		{"basic scheme", "POST", "/v1/exec", touch, map[string]string{"Authorization": "Basic " + d.Token}, 401, protocol.CodeUnauthorized},
		{"origin", "POST", "/v1/exec", touch, map[string]string{"Origin": "https://evil.example"}, 403, protocol.CodeOriginRefused},
		{"origin null", "GET", "/v1/health", "", map[string]string{"Origin": "null"}, 403, protocol.CodeOriginRefused},
		{"rebound host", "POST", "/v1/exec", touch, map[string]string{"Host": "evil.example:80"}, 403, protocol.CodeHostRefused},
		{"protocol 1", "POST", "/v1/exec", `{"command":"touch x","wrapper":"bash"}`, nil, 400, protocol.CodeProtocolV1},
		{"malformed", "POST", "/v1/exec", `{"command":`, nil, 400, protocol.CodeInvalidJSON},
		{"unknown field", "POST", "/v1/exec", `{"command":"true","env":{}}`, nil, 400, protocol.CodeUnknownField},
		{"duplicate field", "POST", "/v1/exec", `{"command":"true","command":"touch x"}`, nil, 400, protocol.CodeDuplicateField},
		{"empty command", "POST", "/v1/exec", `{"command":""}`, nil, 400, protocol.CodeInvalidCommand},
		{"NUL", "POST", "/v1/exec", `{"command":"touch a\u0000b"}`, nil, 400, protocol.CodeInvalidCommand},
		{"invalid UTF-8", "POST", "/v1/exec", "{\"command\":\"touch \xff\"}", nil, 400, protocol.CodeInvalidUTF8},
		{"relative cwd", "POST", "/v1/exec", `{"command":"true","cwd":"sub"}`, nil, 400, protocol.CodeInvalidCwd},
		{"negative timeout", "POST", "/v1/exec", `{"command":"true","timeout":-5}`, nil, 400, protocol.CodeInvalidTimeout},
		{"wrong content type", "POST", "/v1/exec", touch, map[string]string{"Content-Type": "text/plain"}, 415, protocol.CodeUnsupportedMedia},
		{"too large", "POST", "/v1/exec", `{"command":"true","stdin":"` + strings.Repeat("a", 17<<20) + `"}`, nil, 413, protocol.CodeBodyTooLarge},
		{"unknown path", "GET", "/v1/nope", "", nil, 404, protocol.CodeNotFound},
		{"wrong method", "GET", "/v1/exec", "", nil, 405, protocol.CodeMethodNotAllowed},
		{"bad audit limit", "GET", "/v1/audit?limit=-1", "", nil, 400, protocol.CodeBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := d.raw(t, tc.method, tc.path, tc.body, tc.header)
			if status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tc.wantStatus, body)
			}
			if tc.wantCode != "" {
				if got := errorCode(t, body); got != tc.wantCode {
					t.Errorf("code %q, want %q", got, tc.wantCode)
				}
			}
			if status == 401 && header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a refused request ran its command")
	}
	// Nothing above reached the audit log.
	status, _, body := d.raw(t, "GET", "/v1/status", "", nil)
	var st protocol.Status
	if status != 200 || json.Unmarshal([]byte(body), &st) != nil || st.Audit.Entries != 0 {
		t.Errorf("status after bad input: %d %s", status, body)
	}
}

func TestAuthFailuresAreSlowedDown(t *testing.T) {
	d := startDaemon(t)
	got429 := false
	for range 40 {
		status, header, _ := d.raw(t, "GET", "/v1/health", "", map[string]string{"Authorization": "Bearer nope"})
		if status == http.StatusTooManyRequests {
			got429 = header.Get("Retry-After") != ""
			break
		}
	}
	if !got429 {
		t.Fatal("40 bad tokens in a row were never slowed down")
	}
	// The right token still works while the wrong ones are being refused.
	if status, _, body := d.raw(t, "GET", "/v1/health", "", nil); status != 200 {
		t.Errorf("good token refused: %d %s", status, body)
	}
}

func TestFloodIsBounded(t *testing.T) {
	d := startDaemon(t, "--approval", "allow", "--max-concurrent", "2")
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, _ := d.raw(t, "POST", "/v1/exec", `{"command":"sleep 1"}`, nil)
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[200] < 2 || statuses[429] == 0 || statuses[200]+statuses[429] != 12 {
		t.Errorf("statuses %v: want at least 2 answered and the excess refused with 429", statuses)
	}
}

func TestHostCheckAcceptsAllowedHost(t *testing.T) {
	d := startDaemon(t, "--allow-host", "sidecar.tunnel")
	port := d.URL[strings.LastIndex(d.URL, ":")+1:]
	for _, host := range []string{"localhost:" + port, "sidecar.tunnel:" + port, "sidecar.tunnel"} {
		if status, _, body := d.raw(t, "GET", "/v1/health", "", map[string]string{"Host": host}); status != 200 {
			t.Errorf("Host %s: %d %s", host, status, body)
		}
	}
}
