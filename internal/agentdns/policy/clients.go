package policy

import "net/netip"

// Clients says which queries a policy applies to: those arriving on one of
// Listeners, or from a source address inside one of Sources. Both empty
// matches nothing.
type Clients struct {
	Listeners []string
	Sources   []netip.Prefix
}

// Match reports whether a query that arrived on listener from addr belongs
// to these clients.
func (c Clients) Match(listener string, addr netip.Addr) bool {
	for _, l := range c.Listeners {
		if l == listener {
			return true
		}
	}
	addr = addr.Unmap()
	for _, p := range c.Sources {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
