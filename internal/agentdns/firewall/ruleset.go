package firewall

import (
	"fmt"
	"strings"
)

// Counter names: `nft list counters table inet <table>` shows them.
const (
	CounterDNS   = "dns_bypass"
	CounterDoT   = "dot_bypass"
	CounterRawIP = "raw_ip"
)

// Ruleset renders the nftables ruleset for o. It replaces the table whole
// when loaded with `nft -f` (Apply), so loading it twice is the same as
// once. The rule order matters and is, first match wins: exempt users;
// DNS to a resolver; any other DNS (dropped, counted); DNS over TLS
// (dropped, counted); then, with RawIP, established flows, loopback,
// resolvers and approved addresses pass and everything else is dropped
// and counted.
func Ruleset(o Options) (string, error) {
	if err := o.check(); err != nil {
		return "", err
	}
	v4, v6 := resolverAddrs(o.Resolvers)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("# Agent DNS fence, from `sidecar dns firewall --print`. Load with `nft -f FILE`.")
	w("# Only %s may be asked on port 53; other DNS (53) and DNS over TLS (853) are dropped and counted.", strings.Join(append(append([]string{}, v4...), v6...), ", "))
	// Declaring then deleting the table makes the load replace it whole,
	// in one transaction, whether or not it existed.
	w("table inet %s", o.Table)
	w("delete table inet %s", o.Table)
	w("table inet %s {", o.Table)
	w("\tcounter %s { comment \"DNS to other resolvers, dropped\"; }", CounterDNS)
	w("\tcounter %s { comment \"DNS over TLS, dropped\"; }", CounterDoT)
	w("\tset resolvers_v4 { type ipv4_addr;%s }", elements(v4))
	w("\tset resolvers_v6 { type ipv6_addr;%s }", elements(v6))
	if o.RawIP {
		secs := int(o.SetTimeout.Seconds())
		w("\tcounter %s { comment \"connections to addresses Agent DNS did not answer, dropped\"; }", CounterRawIP)
		w("\tset approved_v4 { type ipv4_addr; flags timeout; timeout %ds; }", secs)
		w("\tset approved_v6 { type ipv6_addr; flags timeout; timeout %ds; }", secs)
	}
	w("\tchain fence {")
	w("\t\ttype filter hook %s priority filter; policy accept;", o.Hook)
	for _, uid := range o.ExemptUIDs {
		w("\t\tmeta skuid %d accept comment \"exempt: Agent DNS's own upstream traffic\"", uid)
	}
	w("\t\tmeta l4proto { tcp, udp } th dport 53 ip daddr @resolvers_v4 accept")
	w("\t\tmeta l4proto { tcp, udp } th dport 53 ip6 daddr @resolvers_v6 accept")
	w("\t\tmeta l4proto { tcp, udp } th dport 53 counter name %s drop", CounterDNS)
	w("\t\tmeta l4proto { tcp, udp } th dport 853 counter name %s drop", CounterDoT)
	if o.RawIP {
		w("\t\tct state established,related accept")
		if o.AllowLoopback && o.Hook == HookOutput {
			w("\t\toifname \"lo\" accept")
		}
		w("\t\tip daddr @resolvers_v4 accept")
		w("\t\tip6 daddr @resolvers_v6 accept")
		w("\t\tip daddr @approved_v4 accept")
		w("\t\tip6 daddr @approved_v6 accept")
		w("\t\tmeta nfproto { ipv4, ipv6 } counter name %s drop", CounterRawIP)
	}
	w("\t}")
	w("}")
	return b.String(), nil
}
