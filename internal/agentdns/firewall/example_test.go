package firewall_test

import (
	"fmt"
	"net/netip"

	"github.com/sidecarhq/sidecar/internal/agentdns/firewall"
)

func ExampleResolvedDropIn() {
	fmt.Print(firewall.ResolvedDropIn([]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53")}))
	// Output:
	// # /etc/systemd/resolved.conf.d/sidecar-dns.conf, from `sidecar dns firewall --print`.
	// # Then: systemctl restart systemd-resolved
	// [Resolve]
	// DNS=127.0.0.1
	// FallbackDNS=
	// Domains=~.
}
