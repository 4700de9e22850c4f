// Package firewall closes the ways around Agent DNS: it renders the
// nftables ruleset that lets only the assigned resolvers answer DNS (53,
// udp and tcp), drops and counts every other DNS query and all DNS over
// TLS (853), and, for enforce mode, drops and counts connections to any
// address the resolver did not answer for an approved name. It also prints
// the systemd-resolved drop-in and the Docker daemon setting that point a
// host or its containers at Agent DNS, applies the ruleset with the nft
// binary, and keeps the approved-address sets filled (SetSink).
package firewall

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Defaults.
const (
	DefaultTable      = "sidecar_dns"
	DefaultSetTimeout = time.Hour
)

// Hooks a fence can sit on.
const (
	// HookOutput fences this host's own processes.
	HookOutput = "output"
	// HookForward fences traffic routed through this host: a sandbox or
	// container behind a bridge or veth.
	HookForward = "forward"
)

// ErrOptions reports options that cannot make a ruleset.
var ErrOptions = errors.New("bad firewall options")

var tableName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,30}$`)

// Options describe the fence.
type Options struct {
	// Table is the nftables table (family inet) the ruleset owns whole.
	Table string
	// Resolvers are Agent DNS's listeners: the only addresses that may be
	// asked on port 53.
	Resolvers []netip.AddrPort
	// Hook is HookOutput or HookForward.
	Hook string
	// ExemptUIDs (output hook only) are users whose traffic passes: the
	// user Agent DNS runs as, so it can reach its upstreams.
	ExemptUIDs []uint32
	// RawIP adds the enforce-mode rule: new connections only to resolvers
	// and to addresses in the approved sets (filled by SetSink).
	RawIP bool
	// AllowLoopback lets loopback traffic pass the RawIP rule (output hook).
	AllowLoopback bool
	// SetTimeout is how long an approved address stays in its set.
	SetTimeout time.Duration
}

func (o *Options) check() error {
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if o.Hook == "" {
		o.Hook = HookOutput
	}
	if o.SetTimeout == 0 {
		o.SetTimeout = DefaultSetTimeout
	}
	switch {
	case !tableName.MatchString(o.Table):
		return fmt.Errorf("%w: table %q: want a letter then letters, digits or _", ErrOptions, o.Table)
	case o.Hook != HookOutput && o.Hook != HookForward:
		return fmt.Errorf("%w: hook %q: want output or forward", ErrOptions, o.Hook)
	case o.Hook == HookForward && len(o.ExemptUIDs) > 0:
		return fmt.Errorf("%w: exempt users apply to the output hook only (forwarded packets have no local user)", ErrOptions)
	case len(o.Resolvers) == 0:
		return fmt.Errorf("%w: no resolvers: name at least one listener", ErrOptions)
	case o.SetTimeout < time.Second:
		return fmt.Errorf("%w: set timeout %v: want a second or more", ErrOptions, o.SetTimeout)
	}
	return nil
}

// resolverAddrs splits the resolvers' addresses by family, sorted and
// without duplicates.
func resolverAddrs(rs []netip.AddrPort) (v4, v6 []string) {
	seen := map[netip.Addr]bool{}
	for _, r := range rs {
		a := r.Addr().Unmap()
		if seen[a] {
			continue
		}
		seen[a] = true
		if a.Is4() {
			v4 = append(v4, a.String())
		} else {
			v6 = append(v6, a.String())
		}
	}
	sort.Strings(v4)
	sort.Strings(v6)
	return v4, v6
}

func elements(addrs []string) string {
	if len(addrs) == 0 {
		return ""
	}
	return " elements = { " + strings.Join(addrs, ", ") + " };"
}
