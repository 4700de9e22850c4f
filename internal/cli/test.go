package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

func newTestCmd(env Env) *cobra.Command {
	var rf remoteFlags
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Round-trip a harmless command through the daemon and print PASS or what failed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			c, url, err := rf.client(env)
			if err != nil {
				return err
			}
			ctx, cancel := contextWithTimeout(cmd, 30*time.Second)
			defer cancel()
			b := make([]byte, 6)
			_, _ = rand.Read(b) // never fails on Linux
			nonce := "sidecar-test-" + hex.EncodeToString(b)
			// echo is on the safe list, so this never waits for a prompt.
			resp, err := c.Exec(ctx, protocol.ExecRequest{Command: "echo " + nonce, Session: "sidecar-test"})
			switch {
			case err != nil:
				fmt.Fprintf(out, "FAIL  %s: %v\n", url, err)
				return exitError{1}
			case resp.ExitCode != 0 || resp.Output != nonce+"\n":
				fmt.Fprintf(out, "FAIL  %s: exit %d, decision %s (%s), output %q\n", url, resp.ExitCode, resp.Decision, resp.Reason, resp.Output)
				return exitError{1}
			}
			fmt.Fprintf(out, "PASS  %s ran `echo` in %s (exit 0, %d ms)\n", url, resp.Cwd, resp.DurationMs)
			return nil
		},
	}
	rf.add(cmd)
	return cmd
}

func contextWithTimeout(cmd *cobra.Command, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), d)
}
