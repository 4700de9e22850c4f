package agentdns

import (
	"context"
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"

	"github.com/sidecarhq/sidecar/internal/agentdns/config"
	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

// newTestResolver builds a Server without binding anything, for calling
// HandlePacket directly.
func newTestResolver(t testing.TB, up *fakeUpstream, body string) *Server {
	t.Helper()
	cat, err := templates.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("dns.yaml", []byte(strings.ReplaceAll(body, "UPSTREAM", up.addr.String())), cat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: cfg, Dir: t.TempDir(), Templates: cat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pack(t testing.TB, m *dns.Msg) []byte {
	t.Helper()
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func query(name string, qtype uint16) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.Id = 0x1234
	return m
}

var client = netip.MustParseAddrPort("127.0.0.1:40000")

func TestHandlePacketRejects(t *testing.T) {
	up := startUpstream(t, nil)
	s := newTestResolver(t, up, learnConfig)
	notify := query("a.example.", dns.TypeSOA)
	notify.Opcode = dns.OpcodeNotify
	two := query("a.example.", dns.TypeA)
	two.Question = append(two.Question, dns.Question{Name: "b.example.", Qtype: dns.TypeA, Qclass: dns.ClassINET})
	chaos := query("version.bind.", dns.TypeTXT)
	chaos.Question[0].Qclass = dns.ClassCHAOS
	reply := query("a.example.", dns.TypeA)
	reply.Response = true
	valid := pack(t, query("a.example.", dns.TypeA))

	tests := []struct {
		name string
		data []byte
		want string // hex of the header, or "" for no reply
	}{
		{"empty", nil, ""},
		{"shorter than a header", valid[:11], ""},
		{"a reply, not a query", pack(t, reply), ""},
		{"header claims a question that is missing", valid[:12], "12348181"},
		{"question cut short: class 0", valid[:len(valid)-2], "12348185"},
		{"compression pointer loop", append(append([]byte{}, valid[:12]...), 0xc0, 0x0c, 0, 1, 0, 1), "123480010000000000000000"},
		{"opcode NOTIFY", pack(t, notify), "1234a184"},
		{"two questions", pack(t, two), "12348181"},
		{"class CHAOS", pack(t, chaos), "12348185"},
		{"zone transfer", pack(t, query("example.", dns.TypeAXFR)), "12348185"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := s.Resolver().HandlePacket(context.Background(), Packet{Data: tc.data, Client: client, Listener: "main"}, nil)
			got := hex.EncodeToString(out)
			if len(tc.want) < len(got) {
				got = got[:len(tc.want)]
			}
			if got != tc.want {
				t.Errorf("reply = %s, want prefix %q", hex.EncodeToString(out), tc.want)
			}
		})
	}
	if up.count() != 0 {
		t.Errorf("upstream asked %d times; rejected packets must never reach it", up.count())
	}
}

func TestHandlePacketTruncatesForUDP(t *testing.T) {
	// The upstream sends all 40 records (about 2.5 KB) even over UDP.
	up := startUpstream(t, func(_ dns.ResponseWriter, r *dns.Msg) *dns.Msg { return bigAnswer(r) })
	s := newTestResolver(t, up, learnConfig)
	q := query("big.example.", dns.TypeTXT)
	tests := []struct {
		name      string
		edns      uint16
		tcp       bool
		wantTC    bool
		wantMaxSz int
	}{
		{"no EDNS: 512", 0, false, true, 512},
		{"EDNS 1232", 1232, false, true, 1232},
		{"EDNS 4096 fits", 4096, false, false, 4096},
		{"TCP fits", 0, true, false, 65535},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := q.Copy()
			if tc.edns > 0 {
				m.SetEdns0(tc.edns, false)
			}
			out := s.Resolver().HandlePacket(context.Background(), Packet{Data: pack(t, m), Client: client, Listener: "main", TCP: tc.tcp}, nil)
			var r dns.Msg
			if err := r.Unpack(out); err != nil {
				t.Fatal(err)
			}
			if r.Truncated != tc.wantTC || len(out) > tc.wantMaxSz {
				t.Errorf("TC %v, %d bytes; want TC %v and at most %d", r.Truncated, len(out), tc.wantTC, tc.wantMaxSz)
			}
		})
	}
}

func TestStageStats(t *testing.T) {
	up := startUpstream(t, nil)
	s := newTestResolver(t, up, learnConfig)
	r := s.Resolver()
	for _, m := range []*dns.Msg{query("a.example.", dns.TypeA), query("a.example.", dns.TypeA), query("b.example.", dns.TypeAXFR)} {
		r.HandlePacket(context.Background(), Packet{Data: pack(t, m), Client: client, Listener: "main"}, nil)
	}
	want := []StageStats{
		{Name: "log", Queries: 3},
		{Name: "sanity", Queries: 3, Answered: 1},
		{Name: "policy", Queries: 2},
		{Name: "cache", Queries: 2, Answered: 1},
		{Name: "forward", Queries: 1, Answered: 1},
	}
	if diff := cmp.Diff(want, r.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}
