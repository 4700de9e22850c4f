package agentdns

import "github.com/miekg/dns"

// ednsSize is the UDP payload size Agent DNS advertises and asks upstream
// with: the DNS Flag Day 2020 value, small enough never to fragment.
const ednsSize = 1232

// maxUDPReply returns the largest UDP reply the client accepts: its EDNS
// buffer size, bounded to [512, 4096], or 512 without EDNS.
func maxUDPReply(req *dns.Msg) int {
	opt := req.IsEdns0()
	if opt == nil {
		return dns.MinMsgSize
	}
	return min(max(int(opt.UDPSize()), dns.MinMsgSize), 4096)
}

// finishOPT makes the reply's OPT record match the request: none if the
// request had none (RFC 6891 forbids it, so an EDE cannot be sent either);
// else our own, with the request's DO bit and ede if set. Options from the
// upstream are hop-by-hop and dropped.
func finishOPT(req, resp *dns.Msg, ede *dns.EDNS0_EDE) {
	extra := resp.Extra[:0]
	for _, rr := range resp.Extra {
		if rr.Header().Rrtype != dns.TypeOPT {
			extra = append(extra, rr)
		}
	}
	resp.Extra = extra
	ropt := req.IsEdns0()
	if ropt == nil {
		return
	}
	opt := &dns.OPT{Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeOPT}}
	opt.SetUDPSize(ednsSize)
	opt.SetDo(ropt.Do())
	if ede != nil {
		opt.Option = append(opt.Option, ede)
	}
	resp.Extra = append(resp.Extra, opt)
}
