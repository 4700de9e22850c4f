package agentdns

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/miekg/dns"
)

// Extended DNS Error codes (RFC 8914) Agent DNS answers with.
const (
	// EDEDenied marks a name denied by a rule or a person.
	EDEDenied = dns.ExtendedErrorCodeBlocked
	// EDEHeld marks a name held until a person approves it.
	EDEHeld = dns.ExtendedErrorCodeFiltered
	// EDENoPolicy marks a client no policy covers.
	EDENoPolicy = dns.ExtendedErrorCodeProhibited
)

// blockSpec is how one policy answers held and denied names.
type blockSpec struct {
	v4, v6 netip.Addr
	ttl    uint32
}

// blockAnswer answers q with the block address for A and AAAA (when one is
// configured for that family) and NODATA for every other type.
func blockAnswer(q *Query, b blockSpec) *dns.Msg {
	m := new(dns.Msg)
	m.SetRcode(q.Req, dns.RcodeSuccess)
	hdr := dns.RR_Header{Name: q.Req.Question[0].Name, Class: dns.ClassINET, Ttl: b.ttl}
	switch {
	case q.Type == dns.TypeA && b.v4.IsValid():
		hdr.Rrtype = dns.TypeA
		m.Answer = []dns.RR{&dns.A{Hdr: hdr, A: net.IP(b.v4.AsSlice())}}
	case q.Type == dns.TypeAAAA && b.v6.IsValid():
		hdr.Rrtype = dns.TypeAAAA
		m.Answer = []dns.RR{&dns.AAAA{Hdr: hdr, AAAA: net.IP(b.v6.AsSlice())}}
	}
	return m
}

func heldEDE(name, pol string) *dns.EDNS0_EDE {
	return &dns.EDNS0_EDE{InfoCode: EDEHeld, ExtraText: fmt.Sprintf(
		"sidecar: %s is held: first seen under policy %s; a person must approve it (sidecar dns approve %s --policy %s)",
		name, pol, name, pol)}
}

func deniedEDE(name, pol, rule string) *dns.EDNS0_EDE {
	return &dns.EDNS0_EDE{InfoCode: EDEDenied, ExtraText: fmt.Sprintf(
		"sidecar: %s is denied by policy %s (rule %s)", name, pol, rule)}
}

func noPolicyEDE() *dns.EDNS0_EDE {
	return &dns.EDNS0_EDE{InfoCode: EDENoPolicy, ExtraText: "sidecar: no policy covers this client"}
}
