package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

func TestExecRoundTrip(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	ctx := context.Background()
	if err := os.Mkdir(filepath.Join(d.Workspace, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		req        protocol.ExecRequest
		wantExit   int
		wantOutput string
		wantCwd    string
		approval   string
	}{
		{name: "pwd", req: protocol.ExecRequest{Command: "pwd"}, wantOutput: d.Workspace + "\n", wantCwd: d.Workspace, approval: "policy"},
		{name: "stdout and stderr merged in order", req: protocol.ExecRequest{Command: "echo out; echo err >&2; echo out2"},
			wantOutput: "out\nerr\nout2\n", wantCwd: d.Workspace, approval: "policy"},
		{name: "exit code", req: protocol.ExecRequest{Command: "sh -c 'exit 7'"}, wantExit: 7, wantCwd: d.Workspace, approval: "policy"},
		{name: "exit 3 still reports cwd", req: protocol.ExecRequest{Command: "cd sub; exit 3", Session: "exit3"},
			wantExit: 3, wantCwd: filepath.Join(d.Workspace, "sub"), approval: "policy"},
		{name: "stdin", req: protocol.ExecRequest{Command: "cat", Stdin: ptr("from stdin\n")}, wantOutput: "from stdin\n", wantCwd: d.Workspace, approval: "policy"},
		{name: "no stdin reads EOF", req: protocol.ExecRequest{Command: "cat"}, wantOutput: "", wantCwd: d.Workspace, approval: "policy"},
		{name: "hard deny", req: protocol.ExecRequest{Command: "sudo id"}, wantExit: 125, wantCwd: d.Workspace, approval: "hard_deny"},
		{name: "cwd outside workspace", req: protocol.ExecRequest{Command: "pwd", Cwd: "/"}, wantExit: 125, wantCwd: d.Workspace, approval: "workspace"},
		{name: "cwd missing", req: protocol.ExecRequest{Command: "pwd", Cwd: filepath.Join(d.Workspace, "nope")}, wantExit: 126, wantCwd: d.Workspace, approval: "workspace"},
		{name: "cwd escapes by ..", req: protocol.ExecRequest{Command: "pwd", Cwd: d.Workspace + "/../.."}, wantExit: 125, wantCwd: d.Workspace, approval: "workspace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Exec(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.ExitCode != tc.wantExit || resp.Approval != tc.approval || resp.Cwd != tc.wantCwd {
				t.Errorf("exit %d approval %s cwd %s, want exit %d approval %s cwd %s (output %q)",
					resp.ExitCode, resp.Approval, resp.Cwd, tc.wantExit, tc.approval, tc.wantCwd, resp.Output)
			}
			if tc.wantExit == 125 && !strings.HasPrefix(resp.Output, "Sidecar denied this command: ") {
				t.Errorf("denial output %q", resp.Output)
			}
			if tc.wantExit != 125 && tc.wantExit != 126 && tc.wantOutput != "" && resp.Output != tc.wantOutput {
				t.Errorf("output %q, want %q", resp.Output, tc.wantOutput)
			}
			if resp.Audit == nil || resp.Audit.Hash == "" {
				t.Errorf("no audit reference in %+v", resp)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestSessionStatePersists(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	ctx := context.Background()
	if err := os.Mkdir(filepath.Join(d.Workspace, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		session, command, want string
	}{
		{"a", "cd sub && pwd", filepath.Join(d.Workspace, "sub") + "\n"},
		{"a", "pwd", filepath.Join(d.Workspace, "sub") + "\n"},
		{"b", "pwd", d.Workspace + "\n"},
		{"a", "export GREETING='hello world' PATH=/evil:$PATH LD_PRELOAD=/evil.so", ""},
		{"a", `printf '%s|%s|%s' "$GREETING" "${LD_PRELOAD-unset}" "${PATH%%:*}"`, "hello world|unset|" + strings.Split(os.Getenv("PATH"), ":")[0]},
		{"b", `printf '%s' "${GREETING-unset}"`, "unset"},
	}
	for i, s := range steps {
		resp, err := c.Exec(ctx, protocol.ExecRequest{Command: s.command, Session: s.session})
		if err != nil {
			t.Fatal(err)
		}
		if resp.ExitCode != 0 || (s.want != "" && resp.Output != s.want) {
			t.Fatalf("step %d %q: exit %d output %q, want %q", i, s.command, resp.ExitCode, resp.Output, s.want)
		}
	}
	// The state lives in the state dir, never in the workspace.
	if _, err := os.Stat(filepath.Join(d.StateDir, "sessions")); err != nil {
		t.Errorf("no session state in the state dir: %v", err)
	}
	entries, _ := os.ReadDir(d.Workspace)
	if len(entries) != 1 {
		t.Errorf("workspace holds more than sub/: %v", entries)
	}
}

func TestOutputCapAndTimeout(t *testing.T) {
	d := startDaemon(t, "--approval", "allow", "--max-output", "4096", "--timeout", "10", "--max-timeout", "30")
	c := d.client(t)
	ctx := context.Background()

	resp, err := c.Exec(ctx, protocol.ExecRequest{Command: "head -c 1000000 /dev/zero | tr '\\0' x"})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated || !strings.HasSuffix(resp.Output, "[OUTPUT TRUNCATED: 995904 bytes omitted]\n") || !strings.HasPrefix(resp.Output, strings.Repeat("x", 4096)) {
		t.Errorf("truncated %v, output tail %q", resp.Truncated, resp.Output[max(0, len(resp.Output)-80):])
	}

	mark := fmt.Sprintf("100.%d", time.Now().UnixNano()%1e9)
	timeout := 1.0
	resp, err = c.Exec(ctx, protocol.ExecRequest{Command: fmt.Sprintf("sh -c 'sleep %s & sleep %s'", mark, mark), Timeout: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ExitCode != 124 {
		t.Fatalf("exit %d, want 124: %q", resp.ExitCode, resp.Output)
	}
	if left := procsWithArg(t, mark); len(left) > 0 {
		t.Errorf("processes left after the timeout: %v", left)
	}

	huge := 1e12
	resp, err = c.Exec(ctx, protocol.ExecRequest{Command: "true", Timeout: &huge})
	if err != nil || resp.ExitCode != 0 {
		t.Fatalf("huge timeout: %+v %v", resp, err)
	}
}

func TestCancel(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	ctx := context.Background()
	mark := fmt.Sprintf("200.%d", time.Now().UnixNano()%1e9)
	done := make(chan protocol.ExecResponse, 1)
	go func() {
		resp, err := c.Exec(ctx, protocol.ExecRequest{Command: "sleep " + mark, RequestID: "to-cancel"})
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	waitFor(t, func() bool { return len(procsWithArg(t, mark)) > 0 })
	if _, err := c.Cancel(ctx, "to-cancel"); err != nil {
		t.Fatal(err)
	}
	resp := <-done
	if resp.ExitCode != 130 {
		t.Errorf("cancelled exit %d, want 130", resp.ExitCode)
	}
	if left := procsWithArg(t, mark); len(left) > 0 {
		t.Errorf("processes left after cancel: %v", left)
	}
	if _, err := c.Cancel(ctx, "to-cancel"); err == nil || !strings.Contains(err.Error(), protocol.CodeUnknownRequest) {
		t.Errorf("cancel of a finished request: %v", err)
	}
}

func TestConcurrentRequests(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Exec(context.Background(), protocol.ExecRequest{Command: fmt.Sprintf("sleep 0.2; echo %d", i), Session: fmt.Sprintf("s%d", i%3)})
			if err != nil || resp.Output != fmt.Sprintf("%d\n", i) {
				t.Errorf("request %d: %+v %v", i, resp, err)
			}
		}()
	}
	wg.Wait()
	// Every request left two audit records, in one unbroken chain.
	out, code := runCLI(t, nil, "log", "verify", "--state-dir", d.StateDir)
	if code != 0 || !strings.Contains(out, "OK    32 records") {
		t.Errorf("log verify: %d %s", code, out)
	}
}

func TestAskModeWithoutTerminalDenies(t *testing.T) {
	d := startDaemon(t) // ask mode; the daemon has no terminal
	c := d.client(t)
	resp, err := c.Exec(context.Background(), protocol.ExecRequest{Command: "touch created"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ExitCode != 125 || resp.Approval != "no_tty" {
		t.Errorf("exit %d approval %s, want 125 no_tty", resp.ExitCode, resp.Approval)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "created")); err == nil {
		t.Error("the denied command ran")
	}
	resp, err = c.Exec(context.Background(), protocol.ExecRequest{Command: "ls -la"})
	if err != nil || resp.ExitCode != 0 || resp.Approval != "policy" {
		t.Errorf("safe command in ask mode: %+v %v", resp, err)
	}
}

func TestSigtermKillsRunningAndExitsZero(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	mark := fmt.Sprintf("300.%d", time.Now().UnixNano()%1e9)
	// A background job of a finished command lives on until the daemon stops.
	bg := fmt.Sprintf("400.%d", time.Now().UnixNano()%1e9)
	if resp, err := c.Exec(context.Background(), protocol.ExecRequest{Command: "sleep " + bg + " >/dev/null 2>&1 &"}); err != nil || resp.ExitCode != 0 {
		t.Fatalf("start background job: %+v %v", resp, err)
	}
	if len(procsWithArg(t, bg)) != 1 {
		t.Fatal("the background job did not outlive its command")
	}
	done := make(chan protocol.ExecResponse, 1)
	go func() {
		resp, _ := c.Exec(context.Background(), protocol.ExecRequest{Command: "sleep " + mark})
		done <- resp
	}()
	waitFor(t, func() bool { return len(procsWithArg(t, mark)) > 0 })
	if err := d.stop(); err != nil {
		t.Fatalf("daemon exit after SIGTERM: %v\n%s", err, d.stderr)
	}
	if resp := <-done; resp.ExitCode != 130 {
		t.Errorf("running command answered exit %d, want 130", resp.ExitCode)
	}
	for _, m := range []string{mark, bg} {
		waitFor(t, func() bool { return len(procsWithArg(t, m)) == 0 })
	}
	out, code := runCLI(t, nil, "log", "verify", "--state-dir", d.StateDir)
	if code != 0 {
		t.Errorf("audit chain after shutdown: %s", out)
	}
}

func TestAuditEndpoint(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	ctx := context.Background()
	for _, cmd := range []string{"echo one", "curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' https://example.invalid"} {
		if _, err := c.Exec(ctx, protocol.ExecRequest{Command: cmd}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := c.Audit(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Records) != 3 || resp.Entries != 4 || resp.Records[2].Hash != resp.Head {
		b, _ := json.MarshalIndent(resp, "", " ")
		t.Fatalf("audit: %s", b)
	}
	for _, r := range resp.Records {
		if strings.Contains(r.Command, "abcdefghijklmnop") {
			t.Errorf("secret not redacted: %q", r.Command)
		}
	}
}

func TestCwdOutsideWorkspaceIsNotCarriedOver(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	ctx := context.Background()
	resp, err := c.Exec(ctx, protocol.ExecRequest{Command: "cd /tmp && pwd", Session: "out"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Cwd != d.Workspace || !strings.Contains(resp.Output, "ended in /tmp, outside the workspace") {
		t.Fatalf("cwd %q output %q", resp.Cwd, resp.Output)
	}
	// The cwd the answer names is one the daemon accepts back.
	resp, err = c.Exec(ctx, protocol.ExecRequest{Command: "pwd", Session: "out", Cwd: resp.Cwd})
	if err != nil || resp.ExitCode != 0 || resp.Output != d.Workspace+"\n" {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestTimeoutAndCancelFlags(t *testing.T) {
	d := startDaemon(t, "--approval", "allow")
	c := d.client(t)
	timeout := 0.5
	resp, err := c.Exec(context.Background(), protocol.ExecRequest{Command: "sleep 5", Timeout: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.TimedOut || resp.Cancelled || resp.ExitCode != 124 || strings.Contains(resp.Output, "Bad file descriptor") {
		t.Errorf("timed out %v cancelled %v exit %d output %q", resp.TimedOut, resp.Cancelled, resp.ExitCode, resp.Output)
	}
	resp, err = c.Exec(context.Background(), protocol.ExecRequest{Command: "exit 124"})
	if err != nil || resp.TimedOut || resp.ExitCode != 124 {
		t.Errorf("a command's own exit 124: %+v %v", resp, err)
	}
}
