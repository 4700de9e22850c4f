package cli

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecarhq/sidecar/internal/agentdns/admin"
	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
	"github.com/sidecarhq/sidecar/internal/statedir"
)

// newDNSCmd is `sidecar dns`: Agent DNS, the policy resolver, and the
// verbs that manage it through its admin socket.
func newDNSCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dns",
		Short: "Agent DNS: a resolver that inventories, holds and logs every name an agent looks up",
		Long: `Agent DNS is the network half of Sidecar's consent gate. Its policies (in
<state-dir>/dns/dns.yaml) decide per client which names resolve; in enforce mode a name seen
for the first time is held (answered with a block address and an Extended DNS Error) until
you approve it. Every decision is written to <state-dir>/dns/events.jsonl.

Start it with "sidecar dns serve"; the other verbs talk to the running resolver over its
admin socket and take effect at once. See docs/agentdns.md.`,
	}
	cmd.AddCommand(
		newDNSServeCmd(env),
		newDNSStatusCmd(env),
		newDNSInventoryCmd(env),
		newDNSDecideCmd(env, "approve"),
		newDNSDecideCmd(env, "deny"),
		newDNSModeCmd(env),
		newDNSDefaultCmd(env),
		newDNSLogCmd(env),
		newDNSBaselineCmd(env),
		newDNSTemplatesCmd(env),
		newDNSVerifyCmd(env),
		newDNSFirewallCmd(env),
	)
	return cmd
}

// dnsFlags are the flags every dns verb shares.
type dnsFlags struct {
	stateDir string
	config   string
}

func (f *dnsFlags) add(cmd *cobra.Command, withConfig bool) {
	cmd.Flags().StringVar(&f.stateDir, "state-dir", "", "state directory (default ~/.hermes/plugin-data/sidecar, or $SIDECAR_STATE_DIR); Agent DNS keeps its files in its dns/ folder")
	if withConfig {
		cmd.Flags().StringVar(&f.config, "config", "", "Agent DNS config (default <state-dir>/dns/dns.yaml)")
	}
}

// dir returns <state-dir>/dns, created private if missing.
func (f *dnsFlags) dir(env Env) (string, error) {
	sd, err := statedir.Resolve(f.stateDir, env.Getenv)
	if err != nil {
		return "", err
	}
	if err := statedir.Ensure(sd); err != nil {
		return "", err
	}
	dir := filepath.Join(sd, "dns")
	if err := statedir.Ensure(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// load reads the config: --config, else dns.yaml in dir.
func (f *dnsFlags) load(dir string) (*config.Config, *templates.Catalog, error) {
	cat, err := templates.Load()
	if err != nil {
		return nil, nil, err
	}
	path := f.config
	if path == "" {
		path = filepath.Join(dir, "dns.yaml")
	}
	cfg, err := config.Load(path, cat)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("no Agent DNS config at %s: write one (docs/agentdns.md has an example) or pass --config", path)
	}
	return cfg, cat, err
}

// client returns an admin client for the resolver serving dir.
func (f *dnsFlags) client(env Env) (*admin.Client, error) {
	dir, err := f.dir(env)
	if err != nil {
		return nil, err
	}
	return admin.NewClient(filepath.Join(dir, admin.SocketName)), nil
}

// connect opens the admin client for a verb, with the verb's deadline.
// The caller defers done, which closes both.
func (f *dnsFlags) connect(cmd *cobra.Command, env Env) (*admin.Client, context.Context, func(), error) {
	c, err := f.client(env)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := adminContext(cmd)
	return c, ctx, func() {
		cancel()
		c.Close()
	}, nil
}

// liveListeners returns each listener's bound address, asking the running
// resolver (which knows the port it got for a configured port 0) and
// falling back to the config when it is not running.
func liveListeners(cmd *cobra.Command, f dnsFlags, env Env, cfg *config.Config) map[string]netip.AddrPort {
	out := map[string]netip.AddrPort{}
	for _, l := range cfg.Listeners {
		out[l.Name] = l.Address
	}
	c, err := f.client(env)
	if err != nil {
		return out
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		return out // not running: the config is all there is
	}
	for _, l := range st.Listeners {
		if ap, err := netip.ParseAddrPort(l.UDP); err == nil {
			out[l.Name] = ap
		}
	}
	return out
}

func adminContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), 30*time.Second)
}
