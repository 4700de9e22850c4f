package agentdns

import (
	"context"
	"encoding/binary"
	"errors"
	"net/netip"

	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

// Packet is one query as it arrived.
type Packet struct {
	Data     []byte
	Client   netip.AddrPort
	Listener string
	TCP      bool
}

const headerLen = 12

// HandlePacket answers one raw query and returns the raw reply, or nil
// when nothing should be sent: a packet too short to carry a header, or
// one that is itself a reply (answering replies invites loops). A packet
// that does not parse gets FORMERR and goes no further than this function.
// buf, if large enough, is used for the reply.
func (r *Resolver) HandlePacket(ctx context.Context, p Packet, buf []byte) []byte {
	if len(p.Data) < headerLen || p.Data[2]&0x80 != 0 {
		return nil
	}
	req := new(dns.Msg)
	if err := req.Unpack(p.Data); err != nil {
		return formErr(p.Data, buf)
	}
	q := &Query{Req: req, Client: p.Client, Listener: p.Listener, TCP: p.TCP, Start: r.now()}
	if len(req.Question) > 0 {
		q.Name, q.Type = policy.Normalize(req.Question[0].Name), req.Question[0].Qtype
	}
	resp, err := r.chain.entry(ctx, q)
	if err != nil || resp == nil {
		resp = new(dns.Msg)
		resp.SetRcode(req, dns.RcodeServerFailure)
		q.EDE = failureEDE(err)
	}
	resp.Id, resp.Response, resp.Opcode = req.Id, true, req.Opcode
	resp.RecursionDesired, resp.RecursionAvailable = req.RecursionDesired, true
	resp.CheckingDisabled = req.CheckingDisabled
	resp.Question = req.Question
	finishOPT(req, resp, q.EDE)
	limit := dns.MaxMsgSize
	if !p.TCP {
		limit = maxUDPReply(req)
	}
	if resp.Len() > limit {
		resp.Truncate(limit)
	}
	out, err := resp.PackBuffer(buf)
	if err != nil {
		return servFail(req, buf)
	}
	return out
}

// failureEDE says why a query got SERVFAIL, in words fit for the client:
// the error itself stays in the event log.
func failureEDE(err error) *dns.EDNS0_EDE {
	switch {
	case errors.Is(err, ErrUpstream):
		return &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeNetworkError, ExtraText: "sidecar: upstream resolvers did not answer"}
	case errors.Is(err, ErrSink):
		return &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeOther, ExtraText: "sidecar: the firewall could not be opened for this answer"}
	}
	return &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeOther, ExtraText: "sidecar: internal error"}
}

// formErr answers a packet that does not parse: the header's ID and opcode
// with rcode FORMERR, and nothing else.
func formErr(data, buf []byte) []byte {
	out := append(buf[:0], make([]byte, headerLen)...)
	copy(out, data[:4])
	out[2] = 0x80 | data[2]&0x78 // QR, the request's opcode; no AA, TC or RD
	out[3] = dns.RcodeFormatError
	binary.BigEndian.PutUint16(out[4:], 0)
	return out
}

func servFail(req *dns.Msg, buf []byte) []byte {
	m := new(dns.Msg)
	m.SetRcode(req, dns.RcodeServerFailure)
	m.Question = nil
	out, err := m.PackBuffer(buf)
	if err != nil {
		return nil // a bare header always packs; nothing sensible to send otherwise
	}
	return out
}
