package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sidecarhq/sidecar/internal/approver"
	"github.com/sidecarhq/sidecar/internal/protocol"
)

// promptLine is what every approval prompt ends with.
const promptLine = "Approve? [y/a/N/d] "

// ptyProc is a process on a real pseudo-terminal: the test reads what it
// shows and types as the person at the keyboard.
type ptyProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	tty    *os.File
	mu     sync.Mutex
	out    []byte
	done   chan struct{} // the output reader is done
	exited chan struct{} // the process has exited
}

// startOnPTY starts the sidecar binary with args on a new pty that becomes
// its controlling terminal, so /dev/tty is that pty.
func startOnPTY(t *testing.T, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatalf("start on a pty: %v", err)
	}
	p := &ptyProc{t: t, cmd: cmd, tty: tty, done: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit status is not what these tests check
		close(p.exited)
	}()
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // it may have exited already
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			t.Errorf("%v ignored SIGTERM", args)
			_ = cmd.Process.Kill()
			<-p.exited
		}
		tty.Close()
		<-p.done
	})
	return p
}

// waitFor waits until the output from offset on holds s and returns the
// offset just past it.
func (p *ptyProc) waitFor(s string, offset int) int {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p.mu.Lock()
		out := string(p.out)
		p.mu.Unlock()
		if i := strings.Index(out[min(offset, len(out)):], s); i >= 0 {
			return offset + i + len(s)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never showed %q; it shows:\n%s", s, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *ptyProc) transcript() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out)
}

func (p *ptyProc) typeKeys(keys string) {
	p.t.Helper()
	if _, err := p.tty.Write([]byte(keys)); err != nil {
		p.t.Fatalf("type %q: %v", keys, err)
	}
}

// execAsync runs one exec request in the background.
func execAsync(t *testing.T, d *daemon, req protocol.ExecRequest) <-chan protocol.ExecResponse {
	t.Helper()
	c := d.client(t)
	ch := make(chan protocol.ExecResponse, 1)
	go func() {
		resp, err := c.Exec(context.Background(), req)
		if err != nil {
			t.Errorf("exec %q: %v", req.Command, err)
		}
		ch <- resp
	}()
	return ch
}

func await(t *testing.T, ch <-chan protocol.ExecResponse) protocol.ExecResponse {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("exec never answered")
	}
	return protocol.ExecResponse{}
}

// attachApprover runs `sidecar approve` on a pty and waits until the
// daemon counts it.
func attachApprover(t *testing.T, d *daemon) *ptyProc {
	t.Helper()
	p := startOnPTY(t, "approve", "--state-dir", d.StateDir)
	p.waitFor("Waiting for requests", 0)
	return p
}

// TestApproveFromAnotherTerminal drives a daemon that has no terminal
// through `sidecar approve` on a real pty: y, a (and the grant it leaves),
// d with a reason, n; and, once the approver is gone, the answer no.
func TestApproveFromAnotherTerminal(t *testing.T) {
	d := startDaemon(t)
	ap := attachApprover(t, d)
	off := 0

	// y: once.
	got := execAsync(t, d, protocol.ExecRequest{Command: "touch once.txt", RequestID: "r-once"})
	off = ap.waitFor("$ touch once.txt", off)
	off = ap.waitFor(promptLine, off)
	ap.typeKeys("y\n")
	off = ap.waitFor("approved", off)
	if r := await(t, got); r.ExitCode != 0 || r.Approval != "user" || r.Decision != "allow" {
		t.Errorf("y: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "once.txt")); err != nil {
		t.Errorf("y did not run the command: %v", err)
	}

	// a: always, for this exact string in this session.
	got = execAsync(t, d, protocol.ExecRequest{Command: "touch always.txt", Session: "s1"})
	off = ap.waitFor("$ touch always.txt", off)
	off = ap.waitFor(promptLine, off)
	ap.typeKeys("a\n")
	off = ap.waitFor("approved; this exact command runs without asking", off)
	if r := await(t, got); r.ExitCode != 0 || r.Approval != "user" {
		t.Errorf("a: %+v", r)
	}
	r := await(t, execAsync(t, d, protocol.ExecRequest{Command: "touch always.txt", Session: "s1"}))
	if r.ExitCode != 0 || r.Approval != "grant" || r.Decision != "allow" {
		t.Errorf("granted command: %+v", r)
	}

	// Not a prefix, not another session: asked again; d with a reason.
	for _, req := range []protocol.ExecRequest{
		{Command: "touch always.txt extra.txt", Session: "s1"},
		{Command: "touch always.txt", Session: "s2"},
	} {
		got = execAsync(t, d, req)
		off = ap.waitFor("$ "+req.Command, off)
		off = ap.waitFor(promptLine, off)
		ap.typeKeys("d\n")
		off = ap.waitFor("Reason for the agent (one line): ", off)
		ap.typeKeys("use make touch instead\n")
		off = ap.waitFor("denied; the agent is told", off)
		r := await(t, got)
		if r.ExitCode != 125 || r.Approval != "user" || r.Reason != "the person declined: use make touch instead" ||
			!strings.HasPrefix(r.Output, "Sidecar denied this command: the person declined: use make touch instead\n") {
			t.Errorf("%q in %s: %+v", req.Command, req.Session, r)
		}
	}

	// n.
	got = execAsync(t, d, protocol.ExecRequest{Command: "touch no.txt"})
	off = ap.waitFor("$ touch no.txt", off)
	ap.waitFor(promptLine, off)
	ap.typeKeys("n\n")
	if r := await(t, got); r.ExitCode != 125 || r.Approval != "user" {
		t.Errorf("n: %+v", r)
	}

	// The audit log tells the grant apart.
	audit, err := d.client(t).Audit(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var approvals []string
	for _, rec := range audit.Records {
		if rec.Event == "decision" && strings.HasPrefix(rec.Command, "touch always.txt") && rec.Session == "s1" {
			approvals = append(approvals, rec.Approval+"/"+rec.Decision+"/"+rec.Reason)
		}
	}
	want := []string{"user/allow/the person allowed this exact command for the rest of session s1", "grant/allow/",
		"user/deny/the person declined: use make touch instead"}
	if strings.Join(approvals, "|") != strings.Join(want, "|") {
		t.Errorf("audit approvals %q, want %q", approvals, want)
	}

	// Without the approver (and with no terminal), the answer is no.
	_ = ap.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-ap.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("sidecar approve ignored Ctrl-C")
	}
	waitFor(t, func() bool {
		r := await(t, execAsync(t, d, protocol.ExecRequest{Command: "touch alone.txt"}))
		return r.Approval == "no_tty" && r.ExitCode == 125
	})
}

// TestApproveSeveralPending keeps requests waiting (a test approver is
// attached but does not answer), lists them with their age from the CLI,
// and answers them by number and by request id.
func TestApproveSeveralPending(t *testing.T) {
	d := startDaemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	holder, err := approver.Dial(ctx, filepath.Join(d.StateDir, approver.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()

	first := execAsync(t, d, protocol.ExecRequest{Command: "touch first.txt", RequestID: "req-first"})
	if m, err := holder.Next(); err != nil || m.Type != approver.TypePending {
		t.Fatalf("first pending: %+v %v", m, err)
	}
	time.Sleep(1100 * time.Millisecond) // so the first has visibly waited longer
	second := execAsync(t, d, protocol.ExecRequest{Command: "touch second.txt", RequestID: "req-second"})
	if m, err := holder.Next(); err != nil || m.Type != approver.TypePending {
		t.Fatalf("second pending: %+v %v", m, err)
	}

	out, code := runCLI(t, nil, "approve", "list", "--json", "--state-dir", d.StateDir)
	if code != 0 {
		t.Fatalf("approve list: exit %d\n%s", code, out)
	}
	var listed []approver.Pending
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("approve list --json: %v\n%s", err, out)
	}
	if len(listed) != 2 || listed[0].RequestID != "req-first" || listed[1].RequestID != "req-second" ||
		listed[0].AgeMS < 1000 || listed[0].AgeMS <= listed[1].AgeMS {
		t.Errorf("listed %+v, want both, oldest first, with ages", listed)
	}
	out, code = runCLI(t, nil, "approve", "list", "--state-dir", d.StateDir)
	if code != 0 || !regexp.MustCompile(`(?m)^1\s+\d+s\s+default\s+req-first\s+touch first.txt$`).MatchString(out) {
		t.Errorf("approve list: exit %d\n%s", code, out)
	}

	if out, code = runCLI(t, nil, "approve", "answer", "req-second", "d", "--reason", "not that one", "--state-dir", d.StateDir); code != 0 {
		t.Errorf("answer by request id: exit %d\n%s", code, out)
	}
	if r := await(t, second); r.ExitCode != 125 || r.Reason != "the person declined: not that one" {
		t.Errorf("second: %+v", r)
	}
	if out, code = runCLI(t, nil, "approve", "answer", "1", "y", "--state-dir", d.StateDir); code != 0 {
		t.Errorf("answer by number: exit %d\n%s", code, out)
	}
	if r := await(t, first); r.ExitCode != 0 || r.Approval != "user" {
		t.Errorf("first: %+v", r)
	}
	out, code = runCLI(t, nil, "approve", "answer", "1", "y", "--state-dir", d.StateDir)
	if code == 0 || !strings.Contains(out, "request 1 is not pending") {
		t.Errorf("answering twice: exit %d\n%s", code, out)
	}
}

// startDaemonOnPTY runs `sidecar serve` with a pty as its terminal, so it
// can prompt there, and returns it with its pty. flags go to serve.
func startDaemonOnPTY(t *testing.T, flags ...string) (*daemon, *ptyProc) {
	t.Helper()
	root := t.TempDir()
	ws, state := filepath.Join(root, "ws"), filepath.Join(root, "state")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	p := startOnPTY(t, append([]string{"serve", "--port", "0", "--workspace", ws, "--state-dir", state}, flags...)...)
	p.waitFor("listening on http://127.0.0.1:", 0)
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(p.transcript())
	tok, err := os.ReadFile(filepath.Join(state, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return &daemon{t: t, URL: url, Token: strings.TrimSpace(string(tok)), Workspace: ws, StateDir: state,
		stderr: &bytes.Buffer{}, done: make(chan error, 1), cmd: p.cmd}, p
}

// TestFirstAnswerWins runs a daemon that prompts on its own terminal with
// an approver attached too: whichever answers first decides, and the other
// prompt is withdrawn with a line saying where it was answered.
func TestFirstAnswerWins(t *testing.T) {
	d, term := startDaemonOnPTY(t)
	ap := attachApprover(t, d)

	got := execAsync(t, d, protocol.ExecRequest{Command: "touch from-approver.txt"})
	termOff := term.waitFor(promptLine, 0)
	apOff := ap.waitFor(promptLine, 0)
	ap.typeKeys("y\n")
	if r := await(t, got); r.ExitCode != 0 || r.Approval != "user" {
		t.Errorf("approver's answer: %+v", r)
	}
	termOff = term.waitFor("answered in sidecar approve: approved", termOff)

	got = execAsync(t, d, protocol.ExecRequest{Command: "touch from-terminal.txt"})
	termOff = term.waitFor(promptLine, termOff)
	apOff = ap.waitFor("$ touch from-terminal.txt", apOff)
	ap.waitFor(promptLine, apOff)
	term.typeKeys("n\n")
	if r := await(t, got); r.ExitCode != 125 || r.Approval != "user" {
		t.Errorf("terminal's answer: %+v", r)
	}
	ap.waitFor("was withdrawn: answered at the daemon's terminal: denied", apOff)
	if _, err := os.Stat(filepath.Join(d.Workspace, "from-terminal.txt")); err == nil {
		t.Error("a denied command ran")
	}
}

// TestHermesShapes sends the exact commands Hermes's file tools send to a
// real daemon: reads in the workspace run without any prompt (nobody is
// attached, so a prompt would be a denial), and a real write asks exactly
// once.
func TestHermesShapes(t *testing.T) {
	d := startDaemon(t)
	c := d.client(t)
	ctx := context.Background()
	file := filepath.Join(d.Workspace, "src", "main.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := "'" + file + "'"
	sentinel := "__HERMES_RF_0123456789abcdef0123456789abcdef__"
	reads := []string{
		"if [ -f " + q + " ]; then wc -c < " + q + " 2>/dev/null; echo " + sentinel + "; head -c 1000 " + q +
			" 2>/dev/null | base64 2>/dev/null; __hs=$?; echo " + sentinel + "; sed -n '1,2000p' " + q +
			" 2>/dev/null | cut -b1-8001 2>/dev/null; __hr=$?; echo " + sentinel + "; wc -l < " + q +
			" 2>/dev/null; echo " + sentinel + "; tail -c 1 " + q + " 2>/dev/null | wc -l; echo " + sentinel +
			"; echo \"$__hs $__hr\"; elif [ -e " + q + " ]; then echo __hermes_not_regular__; else echo __hermes_missing__; fi",
		"command -v rg >/dev/null 2>&1 && echo 'yes'",
		"test -e '" + d.Workspace + "/src' && echo exists || echo not_found",
		"set -o pipefail; grep -rnHE --exclude-dir='.*' --include '*.go' 'func main' '" + d.Workspace + "/src' | head -n 50 | cut -c1-2000",
		"set -o pipefail; find '" + d.Workspace + "/src' \\( -type d -name '.*' ! -path '" + d.Workspace + "/src' \\) -prune -o -type f ! -name '.*' -name '*.go' -print 2>/dev/null | head -n 51",
		"sha256sum " + q + " 2>/dev/null",
		"ls -1 '" + d.Workspace + "/src'/*.go 2>/dev/null || true",
	}
	for _, cmd := range reads {
		r, err := c.Exec(ctx, protocol.ExecRequest{Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		// rg may be missing here: its lookup then exits 1, which is fine.
		if r.Decision != "allow" || r.Approval != "policy" || r.ExitCode != 0 && !strings.HasPrefix(cmd, "command -v rg") {
			t.Errorf("read %.80q: %s/%s exit %d: %s", cmd, r.Decision, r.Approval, r.ExitCode, r.Output)
		}
	}

	// The atomic write asks once; an approver that counts its prompts says y.
	ap := attachApprover(t, d)
	write := "set -e; d='" + filepath.Dir(file) + "'; t=" + q + "; mkdir -p \"$d\"; " +
		"tmp=\"$(mktemp -p \"$d\" '.hermes-tmp.XXXXXX')\"; trap 'rm -f \"$tmp\"' EXIT; cat > \"$tmp\"; mv -f \"$tmp\" \"$t\"; trap - EXIT"
	got := execAsync(t, d, protocol.ExecRequest{Command: write, Stdin: ptr("package main\n")})
	off := ap.waitFor(promptLine, 0)
	ap.typeKeys("y\n")
	if r := await(t, got); r.ExitCode != 0 || r.Approval != "user" {
		t.Fatalf("write: %+v", r)
	}
	r, err := c.Exec(ctx, protocol.ExecRequest{Command: "sha256sum " + q + " 2>/dev/null"})
	if err != nil || r.Approval != "policy" || !strings.Contains(r.Output, file) {
		t.Errorf("verify after write: %+v %v", r, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := strings.Count(ap.transcript()[off:], promptLine); n != 0 {
		t.Errorf("the write and its check asked %d more times", n)
	}
	if b, _ := os.ReadFile(file); string(b) != "package main\n" {
		t.Errorf("file holds %q", b)
	}
}

// TestPolicyFile runs a daemon with --policy: an allow prefix runs without
// a prompt, a deny prefix beats allow mode and the hard-deny list still
// beats the allow rule; /v1/status shows the file read-only; a broken file
// stops the daemon with the line named.
func TestPolicyFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	text := "version: 1\n" +
		"deny:\n" +
		"  - prefix: git push\n" +
		"    reason: pushing is done by the person\n" +
		"allow:\n" +
		"  - prefix: touch\n" +
		"  - prefix: sudo\n" +
		"sensitive_paths:\n" +
		"  - " + filepath.Join(dir, "secrets") + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, "--approval", "allow", "--policy", file)
	c := d.client(t)
	ctx := context.Background()
	tests := []struct {
		cmd, decision, approval, rule string
	}{
		{"touch made.txt", "allow", "rule", "allow-prefix/touch"},
		{"git push origin main", "deny", "rule", "deny-prefix/git push"},
		{"sudo id", "deny", "hard_deny", "hard-deny/privilege-escalation"},
		{"cat " + filepath.Join(dir, "secrets", "key"), "deny", "hard_deny", "hard-deny/sensitive-path"},
		{"cat " + file, "deny", "hard_deny", "hard-deny/sidecar-state"},
	}
	for _, tc := range tests {
		r, err := c.Exec(ctx, protocol.ExecRequest{Command: tc.cmd})
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision != tc.decision || r.Approval != tc.approval || r.Rule != tc.rule {
			t.Errorf("%q: %s/%s/%s, want %s/%s/%s (%s)", tc.cmd, r.Decision, r.Approval, r.Rule, tc.decision, tc.approval, tc.rule, r.Reason)
		}
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Policy.PolicyFile != file || st.Policy.DenyRules != 1 || st.Policy.AllowRules != 2 || st.Policy.SensitivePaths != 1 {
		t.Errorf("status policy summary: %+v", st.Policy)
	}

	out, code := runCLI(t, nil, "policy", "show", "--policy", file, "--workspace", d.Workspace, "--state-dir", d.StateDir)
	for _, want := range []string{"prefix git push  (policy.yaml:3): pushing is done by the person", "prefix touch  (policy.yaml:6)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("policy show lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	out, code = runCLI(t, nil, "policy", "explain", "--policy", file, "--workspace", d.Workspace, "--state-dir", d.StateDir, "--", "git push")
	if code != 0 || !strings.Contains(out, "rule      deny-prefix/git push") || !strings.Contains(out, "(policy.yaml:3)") {
		t.Errorf("policy explain (exit %d):\n%s", code, out)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("allow:\n  - prefix: make\n  - regex: '(unclosed'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = runCLI(t, nil, "serve", "--port", "0", "--workspace", d.Workspace, "--state-dir", filepath.Join(dir, "state2"), "--policy", bad)
	if code == 0 || !strings.Contains(out, "bad.yaml:3:12: regex \"(unclosed\" does not compile") {
		t.Errorf("serve with a broken policy file: exit %d\n%s", code, out)
	}
}
