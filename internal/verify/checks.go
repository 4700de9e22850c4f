package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sidecarhq/sidecar/internal/audit"
	"github.com/sidecarhq/sidecar/internal/client"
	"github.com/sidecarhq/sidecar/internal/protocol"
)

func checks() []check {
	return []check{
		{"token required", true, checkTokenRequired},
		{"wrong token refused", true, checkWrongToken},
		{"protocol-1 marker refused", true, checkProtocolV1},
		{"exit codes survive", true, checkExitCodes},
		{"timeout kills the whole process group", false, checkTimeoutKillsGroup},
		{"workspace escape denied", true, checkWorkspaceEscape},
		{"environment sanitized", true, checkEnvironment},
		{"audit chain verifies", true, checkAuditChain},
	}
}

func checkTokenRequired(ctx context.Context, e *env) error {
	status, body, err := e.raw.Raw(ctx, http.MethodGet, "/v1/status", nil, http.Header{"Authorization": nil})
	if err != nil {
		return err
	}
	return wantError(status, body, http.StatusUnauthorized, protocol.CodeUnauthorized)
}

func checkWrongToken(ctx context.Context, e *env) error {
	_, err := e.bad.Exec(ctx, protocol.ExecRequest{Command: "pwd"})
	switch {
	case err == nil:
		return errors.New("a wrong token ran a command")
	case !client.IsCode(err, protocol.CodeUnauthorized):
		return fmt.Errorf("want 401 unauthorized, got %v", err)
	}
	return nil
}

func checkProtocolV1(ctx context.Context, e *env) error {
	body := []byte(`{"command":"pwd","wrapper":"bash -c","cwd_marker":"__CWD__"}`)
	status, resp, err := e.c.Raw(ctx, http.MethodPost, "/v1/exec", body, http.Header{"Content-Type": {"application/json"}})
	if err != nil {
		return err
	}
	return wantError(status, resp, http.StatusBadRequest, protocol.CodeProtocolV1)
}

func checkExitCodes(ctx context.Context, e *env) error {
	cmd := "sh -c 'exit 7'"
	want := 7
	if e.Remote {
		// A read that fails: on the safe list, so no prompt, and it
		// touches nothing.
		cmd, want = "test -e ./.sidecar-verify-"+nonce(), 1
	}
	resp, err := e.c.Exec(ctx, protocol.ExecRequest{Command: cmd, Session: "sidecar-verify"})
	if err != nil {
		return err
	}
	if resp.ExitCode != want || resp.Decision != "allow" {
		return fmt.Errorf("%q: want exit %d allowed, got exit %d %s (%s)", cmd, want, resp.ExitCode, resp.Decision, resp.Reason)
	}
	return nil
}

func checkTimeoutKillsGroup(ctx context.Context, e *env) error {
	// A fractional sleep length no other process uses marks our sleeps in
	// /proc, so the check sees them and nothing else.
	mark := fmt.Sprintf("100.%d", time.Now().UnixNano()%1_000_000_000)
	cmd := fmt.Sprintf("sh -c 'sleep %s & sleep %s'", mark, mark)
	timeout := 1.0
	resp, err := e.c.Exec(ctx, protocol.ExecRequest{Command: cmd, Timeout: &timeout, Session: "sidecar-verify"})
	if err != nil {
		return err
	}
	if resp.ExitCode != 124 {
		return fmt.Errorf("want exit 124 after the timeout, got %d (%s)", resp.ExitCode, resp.Reason)
	}
	if left := processesWithArg(mark); len(left) > 0 {
		return fmt.Errorf("processes survived the timeout: %v", left)
	}
	return nil
}

func checkWorkspaceEscape(ctx context.Context, e *env) error {
	resp, err := e.c.Exec(ctx, protocol.ExecRequest{Command: "pwd", Cwd: "/", Session: "sidecar-verify"})
	if err != nil {
		return err
	}
	if resp.ExitCode != 125 || resp.Approval != "workspace" {
		return fmt.Errorf("cwd / : want exit 125 denied by workspace, got exit %d %s by %s", resp.ExitCode, resp.Decision, resp.Approval)
	}
	if e.Workspace == "" || e.Remote {
		return nil
	}
	link := filepath.Join(e.Workspace, "escape-"+nonce())
	if err := os.Symlink("/", link); err != nil {
		return err
	}
	defer os.Remove(link)
	resp, err = e.c.Exec(ctx, protocol.ExecRequest{Command: "pwd", Cwd: link, Session: "sidecar-verify"})
	if err != nil {
		return err
	}
	if resp.ExitCode != 125 || resp.Approval != "workspace" {
		return fmt.Errorf("symlink to / : want exit 125 denied by workspace, got exit %d %s by %s", resp.ExitCode, resp.Decision, resp.Approval)
	}
	return nil
}

// baseNames are the only variables a command may see besides the
// session's own exports and what bash sets for itself.
var baseNames = []string{"PATH", "HOME", "USER", "SHELL", "LANG", "TERM", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "_"}

func checkEnvironment(ctx context.Context, e *env) error {
	session := "sidecar-verify-env-" + nonce()
	if !e.Remote {
		// A variable that would change how every later command runs must
		// not carry over to the next call of the session.
		resp, err := e.c.Exec(ctx, protocol.ExecRequest{Command: "export LD_PRELOAD=/tmp/evil.so BASH_ENV=/tmp/evil", Session: session})
		if err != nil {
			return err
		}
		if resp.ExitCode != 0 {
			return fmt.Errorf("export: exit %d (%s)", resp.ExitCode, resp.Reason)
		}
	}
	resp, err := e.c.Exec(ctx, protocol.ExecRequest{Command: "printenv", Session: session})
	if err != nil {
		return err
	}
	if resp.ExitCode != 0 {
		return fmt.Errorf("printenv: exit %d (%s)", resp.ExitCode, resp.Reason)
	}
	var extra []string
	for _, line := range strings.Split(strings.TrimSpace(resp.Output), "\n") {
		name, _, _ := strings.Cut(line, "=")
		if name != "" && !slices.Contains(baseNames, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		return fmt.Errorf("commands see variables beyond the base set: %s", strings.Join(extra, ", "))
	}
	return nil
}

func checkAuditChain(ctx context.Context, e *env) error {
	resp, err := e.c.Audit(ctx, 1000)
	if err != nil {
		return err
	}
	if !resp.Enabled {
		return errors.New("the daemon runs with --no-audit")
	}
	if len(resp.Records) == 0 {
		return errors.New("no audit records after the checks above ran commands")
	}
	for i := 1; i < len(resp.Records); i++ {
		prev, cur := resp.Records[i-1], resp.Records[i]
		if cur.Seq != prev.Seq+1 || cur.Prev != prev.Hash {
			return fmt.Errorf("records %d and %d do not link", prev.Seq, cur.Seq)
		}
	}
	if last := resp.Records[len(resp.Records)-1]; last.Hash != resp.Head {
		return fmt.Errorf("newest record %d is not the head the daemon reports", last.Seq)
	}
	if e.StateDir != "" {
		rep, err := audit.Verify(e.StateDir)
		if err != nil {
			return err
		}
		if rep.Head != resp.Head {
			return errors.New("the file chain's head differs from the daemon's")
		}
	}
	return nil
}

func wantError(status int, body []byte, wantStatus int, wantCode string) error {
	var e protocol.ErrorBody
	_ = json.Unmarshal(body, &e) // a non-JSON body fails the code check below
	if status != wantStatus || e.Error.Code != wantCode {
		return fmt.Errorf("want %d %s, got %d %s", wantStatus, wantCode, status, strings.TrimSpace(string(body)))
	}
	return nil
}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails on Linux
	return hex.EncodeToString(b)
}
