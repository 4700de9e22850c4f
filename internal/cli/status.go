package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newStatusCmd(env Env) *cobra.Command {
	var rf remoteFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's health, workspace, policy and audit count",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, url, err := rf.client(env)
			if err != nil {
				return err
			}
			ctx, cancel := contextWithTimeout(cmd, 10*time.Second)
			defer cancel()
			st, err := c.Status(ctx)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			fmt.Fprintf(out, "daemon     %s  (sidecar %s, protocol %d, pid %d)\n", url, st.Version, st.Protocol, st.Daemon.PID)
			fmt.Fprintf(out, "workspace  %s\n", st.Workspace)
			fmt.Fprintf(out, "runtime    %s\n", st.Runtime)
			fmt.Fprintf(out, "approval   %s  (allow rules %d, deny rules %d, outside workspace %v)\n",
				st.Approval, st.Policy.AllowRules, st.Policy.DenyRules, st.Policy.AllowOutsideWorkspace)
			if len(st.Policy.HardDeny) > 0 {
				fmt.Fprintf(out, "hard deny  %s\n", strings.Join(st.Policy.HardDeny, ", "))
			}
			fmt.Fprintf(out, "timeouts   default %gs, max %gs\n", st.Timeouts.Default, st.Timeouts.Max)
			if st.Audit.Enabled {
				fmt.Fprintf(out, "audit      %d records, head %s\n", st.Audit.Entries, short(st.Audit.Head))
			} else {
				fmt.Fprintf(out, "audit      off\n")
			}
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the raw status JSON")
	return cmd
}

func short(hash string) string {
	if len(hash) > 16 {
		return hash[:16] + "…"
	}
	return hash
}
