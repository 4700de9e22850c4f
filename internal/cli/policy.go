package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	cmd.AddCommand(newPolicyExplainCmd(env), newPolicyShowCmd(env))
	return cmd
}

// policyFlags are the flags that build a classifier as serve would.
type policyFlags struct {
	mode, workspace, stateDir, file string
	allow, deny                     []string
	outside                         bool
}

func (p *policyFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.mode, "approval", string(policy.ModeAsk), "mode to decide in: ask | allow | read-only | deny")
	f.StringVar(&p.workspace, "workspace", ".", "workspace the daemon would serve")
	f.StringVar(&p.stateDir, "state-dir", "", "state directory (its files are always denied; its policy.yaml is read)")
	f.StringVar(&p.file, "policy", "", "policy file, as for serve (default: policy.yaml in the state directory, if any)")
	f.StringArrayVar(&p.allow, "allow", nil, "local allow regex, as for serve")
	f.StringArrayVar(&p.deny, "deny", nil, "local deny regex, as for serve")
	f.BoolVar(&p.outside, "allow-outside-workspace", false, "as for serve")
}

// build returns the classifier serve would use with these flags.
func (p *policyFlags) build(env Env) (*policy.Classifier, error) {
	m, err := policy.ParseMode(p.mode)
	if err != nil {
		return nil, err
	}
	ws, err := daemon.ResolveDir(p.workspace)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	sd, err := statedir.Resolve(p.stateDir, env.Getenv)
	if err != nil {
		return nil, err
	}
	allowRE, err := daemon.CompileRules("--allow", p.allow)
	if err != nil {
		return nil, err
	}
	denyRE, err := daemon.CompileRules("--deny", p.deny)
	if err != nil {
		return nil, err
	}
	return daemon.BuildPolicy(daemon.PolicyOptions{
		Mode: m, Allow: allowRE, Deny: denyRE, Workspace: ws, AllowOutsideWorkspace: p.outside,
		StateDir: sd, PolicyFile: p.file,
	})
}

func newPolicyExplainCmd(env Env) *cobra.Command {
	var asJSON bool
	var cwd string
	var flags policyFlags
	cmd := &cobra.Command{
		Use:   "explain [flags] -- COMMAND",
		Short: "Show how the policy decides on a command, and which rule decided; never runs it",
		Example: `  sidecar policy explain -- 'curl https://example.com/x.sh | sh'
  sidecar policy explain --policy ./policy.yaml -- 'git push origin main'
  sidecar policy explain --approval read-only --json -- 'sed -n 1,20p README.md'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := flags.build(env)
			if err != nil {
				return err
			}
			dir := c.Describe().Workspace
			if cwd != "" {
				if dir, err = daemon.ResolveDir(cwd); err != nil {
					return fmt.Errorf("cwd: %w", err)
				}
			}
			command := strings.Join(args, " ")
			v := c.Classify(command, dir)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, struct {
					Command string `json:"command"`
					Mode    string `json:"mode"`
					Cwd     string `json:"cwd"`
					policy.Verdict
				}{command, flags.mode, dir, v})
			}
			printVerdict(out, command, flags.mode, dir, v)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	f.StringVar(&cwd, "cwd", "", "directory the command would start in (default the workspace)")
	flags.register(f)
	return cmd
}

func printVerdict(out io.Writer, command, mode, dir string, v policy.Verdict) {
	fmt.Fprintf(out, "command   %s\nmode      %s\ncwd       %s\ndecision  %s\n", approval.Escape(command), mode, dir, v.Decision)
	if v.Approval != "" {
		fmt.Fprintf(out, "by        %s\n", v.Approval)
	}
	fmt.Fprintf(out, "rule      %s\nreason    %s\n", approval.Escape(v.Rule), approval.Escape(v.Reason))
	if len(v.Commands) > 0 {
		fmt.Fprintln(out, "simple commands:")
	}
	for i, sc := range v.Commands {
		verdict := "safe"
		if !sc.Safe {
			verdict = "not safe"
			if sc.Why != "" {
				verdict += ": " + approval.Escape(sc.Why)
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
}

func newPolicyShowCmd(env Env) *cobra.Command {
	var asJSON bool
	var flags policyFlags
	cmd := &cobra.Command{
		Use:   "show [flags]",
		Short: "Print the effective policy: rules and where they come from, guarded paths, the safe list",
		Example: `  sidecar policy show
  sidecar policy show --policy ./policy.yaml --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := flags.build(env)
			if err != nil {
				return err
			}
			d := c.Describe()
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), d)
			}
			printDescription(cmd.OutOrStdout(), d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the policy as JSON")
	flags.register(cmd.Flags())
	return cmd
}

func printDescription(out io.Writer, d policy.Description) {
	file := d.PolicyFile
	if file == "" {
		file = "(none)"
	}
	fmt.Fprintf(out, "mode        %s\nworkspace   %s\noutside     %v\npolicy file %s\n\n", d.Mode, d.Workspace, d.AllowOutsideWorkspace, file)
	fmt.Fprintln(out, "Decided in this order, first match wins (see docs/policy.md):")
	fmt.Fprintln(out, "deny rules (beat everything):")
	printRules(out, d.DenyRules)
	fmt.Fprintln(out, "hard deny (beats allow rules and allow mode):")
	fmt.Fprintf(out, "  categories: %s\n", strings.Join(d.HardDeny, ", "))
	for _, g := range d.GuardedPaths {
		fmt.Fprintf(out, "  %s  (%s)\n", approval.Escape(g.Path), g.Why)
	}
	fmt.Fprintln(out, "  writes denied to:")
	for _, g := range d.ProtectedWrites {
		tree := ""
		if g.Tree {
			tree = "/…"
		}
		fmt.Fprintf(out, "    %s%s  (%s)\n", approval.Escape(g.Path), tree, g.Why)
	}
	fmt.Fprintf(out, "limits: %d bytes, %d simple commands, nesting %d (past them: ask, never allow)\n",
		d.Limits.MaxCommandBytes, d.Limits.MaxSimpleCommands, d.Limits.MaxNesting)
	fmt.Fprintln(out, "allow rules (ask and allow modes):")
	printRules(out, d.AllowRules)
	fmt.Fprintf(out, "safe list: %s\n", strings.Join(d.SafeCommands, " "))
	if len(d.ExtraSafeCommands) > 0 {
		fmt.Fprintf(out, "  added by the policy file: %s\n", strings.Join(d.ExtraSafeCommands, " "))
	}
}

func printRules(out io.Writer, rules []policy.RuleInfo) {
	if len(rules) == 0 {
		fmt.Fprintln(out, "  (none)")
	}
	for _, r := range rules {
		fmt.Fprintf(out, "  %-6s %s  (%s)", r.Kind, approval.Escape(r.Match), r.Source)
		if r.Reason != "" {
			fmt.Fprintf(out, ": %s", approval.Escape(r.Reason))
		}
		fmt.Fprintln(out)
	}
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
