// Package demo runs Sidecar's round trip against a daemon and shows each
// step: the command, its exit code, the decision and how long it took.
package demo

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// Execer runs one command on a daemon (a *client.Client does).
type Execer interface {
	Exec(ctx context.Context, req protocol.ExecRequest) (protocol.ExecResponse, error)
}

// step is one command and what must come back.
type step struct {
	title    string
	command  string
	exit     int
	decision string
	approval string
	output   func(out, workspace string) bool
}

// steps is the demo sequence: what an agent does in its first minute, plus
// the one thing it must never be able to do.
func steps() []step {
	return []step{
		{"where am I", "pwd", 0, "allow", "policy",
			func(out, ws string) bool { return out == ws+"\n" }},
		{"print", "printf 'hello from %s\\n' sidecar", 0, "allow", "policy",
			func(out, _ string) bool { return out == "hello from sidecar\n" }},
		{"write a file", "printf 'remote brain, local hands\\n' > notes.txt", 0, "allow", "policy",
			func(out, _ string) bool { return out == "" }},
		{"read it back", "cat notes.txt", 0, "allow", "policy",
			func(out, _ string) bool { return out == "remote brain, local hands\n" }},
		{"exit code survives", "sh -c 'exit 7'", 7, "allow", "policy", nil},
		{"Apple Events are hard-denied", `osascript -e 'tell application "Finder" to activate'`, 125, "deny", "hard_deny",
			func(out, _ string) bool { return strings.HasPrefix(out, "Sidecar denied this command: ") }},
	}
}

// Run executes the sequence on d (a daemon in allow mode serving
// workspace) and writes one line per step to w. It returns an error naming
// the first step that did not come back as expected.
func Run(ctx context.Context, d Execer, workspace string, w io.Writer) error {
	failed := 0
	for i, s := range steps() {
		resp, err := d.Exec(ctx, protocol.ExecRequest{Command: s.command, Session: "demo"})
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.title, err)
		}
		ok := resp.ExitCode == s.exit && resp.Decision == s.decision && resp.Approval == s.approval &&
			(s.output == nil || s.output(resp.Output, workspace))
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%s %d. %-30s exit %-3d %-5s %-9s %4d ms  $ %s\n",
			mark, i+1, s.title, resp.ExitCode, resp.Decision, resp.Approval, resp.DurationMs, s.command)
		if !ok {
			fmt.Fprintf(w, "     want exit %d, %s by %s; output was %q\n", s.exit, s.decision, s.approval, resp.Output)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d demo checks failed", failed, len(steps()))
	}
	fmt.Fprintln(w, "All demo checks passed.")
	return nil
}
