package agentdns

import (
	"context"
	"fmt"
	"testing"

	"github.com/miekg/dns"
)

// BenchmarkHandlePacketCached is one cached answer through the whole
// chain, event log and inventory included, without sockets.
func BenchmarkHandlePacketCached(b *testing.B) {
	up := startUpstream(b, nil)
	s := newTestResolver(b, up, learnConfig)
	r := s.Resolver()
	pkts := make([][]byte, 100)
	for i := range pkts {
		m := query(fmt.Sprintf("n%d.example.", i), dns.TypeA)
		m.SetEdns0(1232, false)
		pkts[i] = pack(b, m)
		r.HandlePacket(context.Background(), Packet{Data: pkts[i], Client: client, Listener: "main"}, nil) // warm the cache
	}
	buf := make([]byte, 65535)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out := r.HandlePacket(context.Background(), Packet{Data: pkts[i%len(pkts)], Client: client, Listener: "main"}, buf); len(out) == 0 {
			b.Fatal("no answer")
		}
	}
}

// BenchmarkHandlePacketCached100k is the same with 100,000 other names in
// the inventory.
func BenchmarkHandlePacketCached100k(b *testing.B) {
	up := startUpstream(b, nil)
	s := newTestResolver(b, up, learnConfig)
	for i := 0; i < 100000; i++ {
		s.inv.Observe("sandbox", fmt.Sprintf("i%d.example", i), inventoryObservation())
	}
	r := s.Resolver()
	pkts := make([][]byte, 100)
	for i := range pkts {
		m := query(fmt.Sprintf("n%d.example.", i), dns.TypeA)
		m.SetEdns0(1232, false)
		pkts[i] = pack(b, m)
		r.HandlePacket(context.Background(), Packet{Data: pkts[i], Client: client, Listener: "main"}, nil)
	}
	buf := make([]byte, 65535)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out := r.HandlePacket(context.Background(), Packet{Data: pkts[i%len(pkts)], Client: client, Listener: "main"}, buf); len(out) == 0 {
			b.Fatal("no answer")
		}
	}
}
