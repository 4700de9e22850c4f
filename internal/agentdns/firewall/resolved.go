package firewall

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// ResolvedDropIn renders a systemd-resolved drop-in
// (/etc/systemd/resolved.conf.d/sidecar-dns.conf) that sends every lookup
// to Agent DNS: DNS= the resolvers, an empty FallbackDNS= so resolved never
// goes around it, and Domains=~. so it is used for every domain.
func ResolvedDropIn(resolvers []netip.AddrPort) string {
	var addrs []string
	for _, r := range resolvers {
		if r.Port() == 53 {
			addrs = append(addrs, r.Addr().String())
		} else {
			// resolved (v246+) takes IP:port; IPv6 needs brackets, as AddrPort prints.
			addrs = append(addrs, r.String())
		}
	}
	return fmt.Sprintf(`# /etc/systemd/resolved.conf.d/sidecar-dns.conf, from `+"`sidecar dns firewall --print`"+`.
# Then: systemctl restart systemd-resolved
[Resolve]
DNS=%s
FallbackDNS=
Domains=~.
`, strings.Join(addrs, " "))
}

// DockerDaemon renders the "dns" setting for /etc/docker/daemon.json that
// points containers at Agent DNS. Docker only asks port 53, so resolvers
// on other ports are left out and named in note.
func DockerDaemon(resolvers []netip.AddrPort) (setting, note string) {
	var addrs, skipped []string
	for _, r := range resolvers {
		if r.Port() == 53 {
			addrs = append(addrs, r.Addr().String())
		} else {
			skipped = append(skipped, r.String())
		}
	}
	if addrs == nil {
		addrs = []string{}
	}
	b, _ := json.MarshalIndent(map[string][]string{"dns": addrs}, "", "  ") // a map of strings always encodes
	if len(skipped) > 0 {
		note = fmt.Sprintf("Docker asks port 53 only: %s left out; add a listener on port 53 at an address containers reach (e.g. the bridge gateway)", strings.Join(skipped, ", "))
	}
	return string(b) + "\n", note
}
