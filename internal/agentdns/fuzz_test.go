package agentdns

import (
	"context"
	"testing"

	"github.com/miekg/dns"
)

// forwardable reports whether data is a query the chain may forward: it
// parses, is not a reply, has opcode QUERY and one question in class IN.
func forwardable(data []byte) bool {
	var m dns.Msg
	if len(data) < headerLen || m.Unpack(data) != nil || m.Response || m.Opcode != dns.OpcodeQuery || len(m.Question) != 1 {
		return false
	}
	q := m.Question[0]
	return q.Qclass == dns.ClassINET && q.Qtype != dns.TypeAXFR && q.Qtype != dns.TypeIXFR && q.Qtype != dns.TypeOPT
}

// FuzzHandlePacket feeds arbitrary bytes to the packet handler, as UDP and
// as TCP, under a learn-mode policy (which forwards every well-formed
// query). Nothing may panic; what is not a well-formed query must never
// reach the real, counting upstream; every reply must parse, carry the
// query's ID and fit the transport.
func FuzzHandlePacket(f *testing.F) {
	up := startUpstream(f, nil)
	s := newTestResolver(f, up, learnConfig)
	r := s.Resolver()
	f.Fuzz(func(t *testing.T, data []byte, tcp bool) {
		before := up.count()
		out := r.HandlePacket(context.Background(), Packet{Data: data, Client: client, Listener: "main", TCP: tcp}, nil)
		if !forwardable(data) && up.count() != before {
			t.Fatalf("a packet that is not a well-formed query reached the upstream: %x", data)
		}
		if out == nil {
			if len(data) >= headerLen && data[2]&0x80 == 0 {
				t.Fatalf("no reply to a query-shaped packet: %x", data)
			}
			return
		}
		limit := 65535
		if !tcp {
			limit = 4096
		}
		if len(out) > limit {
			t.Fatalf("reply of %d bytes over %s", len(out), map[bool]string{true: "TCP", false: "UDP"}[tcp])
		}
		var m dns.Msg
		if err := m.Unpack(out); err != nil {
			t.Fatalf("reply does not parse: %v (%x)", err, out)
		}
		if m.Id != uint16(data[0])<<8|uint16(data[1]) || !m.Response {
			t.Fatalf("reply ID %04x response %v to query %x", m.Id, m.Response, data[:2])
		}
	})
}
