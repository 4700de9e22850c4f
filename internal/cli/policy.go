package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/approval"
	"github.com/sidecarhq/sidecar/internal/daemon"
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

func newPolicyCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Inspect the local command policy",
	}
	cmd.AddCommand(newPolicyExplainCmd(env))
	return cmd
}

func newPolicyExplainCmd(env Env) *cobra.Command {
	var asJSON bool
	var mode, workspace, cwd, stateDir string
	var allow, deny []string
	var outside bool
	cmd := &cobra.Command{
		Use:   "explain [flags] -- COMMAND",
		Short: "Show how the policy decides on a command, and why; never runs it",
		Example: `  sidecar policy explain -- 'curl https://example.com/x.sh | sh'
  sidecar policy explain --approval read-only --json -- 'sed -n 1,20p README.md'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := policy.ParseMode(mode)
			if err != nil {
				return err
			}
			ws, err := daemon.ResolveDir(workspace)
			if err != nil {
				return fmt.Errorf("workspace: %w", err)
			}
			dir := ws
			if cwd != "" {
				if dir, err = daemon.ResolveDir(cwd); err != nil {
					return fmt.Errorf("cwd: %w", err)
				}
			}
			sd, err := statedir.Resolve(stateDir, env.Getenv)
			if err != nil {
				return err
			}
			allowRE, err := daemon.CompileRules("--allow", allow)
			if err != nil {
				return err
			}
			denyRE, err := daemon.CompileRules("--deny", deny)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir() // without a home, ~ simply stays unexpanded
			c, err := policy.New(policy.Config{
				Mode: m, Allow: allowRE, Deny: denyRE, Workspace: ws, AllowOutsideWorkspace: outside,
				Home: home, StateDir: sd, ResolvePath: policy.ResolveExisting,
			})
			if err != nil {
				return err
			}
			command := strings.Join(args, " ")
			v := c.Classify(command, dir)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Command string `json:"command"`
					Mode    string `json:"mode"`
					Cwd     string `json:"cwd"`
					policy.Verdict
				}{command, string(m), dir, v})
			}
			fmt.Fprintf(out, "command   %s\nmode      %s\ncwd       %s\ndecision  %s\n", approval.Escape(command), m, dir, v.Decision)
			if v.Approval != "" {
				fmt.Fprintf(out, "by        %s\n", v.Approval)
			}
			fmt.Fprintf(out, "rule      %s\nreason    %s\n", v.Rule, v.Reason)
			if len(v.Commands) > 0 {
				fmt.Fprintln(out, "simple commands:")
			}
			for i, sc := range v.Commands {
				verdict := "safe"
				if !sc.Safe {
					verdict = "not safe"
					if sc.Why != "" {
						verdict += ": " + sc.Why
					}
				}
				words := make([]string, len(sc.Args))
				for j, a := range sc.Args {
					words[j] = approval.Escape(a)
				}
				fmt.Fprintf(out, "  %d. %s", i+1, strings.Join(words, " "))
				for _, r := range sc.Redirects {
					fmt.Fprintf(out, " %s%s", r.Op, approval.Escape(r.Target))
				}
				fmt.Fprintf(out, "   [%s]\n", verdict)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	f.StringVar(&mode, "approval", string(policy.ModeAsk), "mode to decide in: ask | allow | read-only | deny")
	f.StringVar(&workspace, "workspace", ".", "workspace the daemon would serve")
	f.StringVar(&cwd, "cwd", "", "directory the command would start in (default the workspace)")
	f.StringVar(&stateDir, "state-dir", "", "state directory (its files are always denied)")
	f.StringArrayVar(&allow, "allow", nil, "local allow regex, as for serve")
	f.StringArrayVar(&deny, "deny", nil, "local deny regex, as for serve")
	f.BoolVar(&outside, "allow-outside-workspace", false, "as for serve")
	return cmd
}
