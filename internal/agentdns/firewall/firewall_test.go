package firewall

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRulesetGolden(t *testing.T) {
	got, err := Ruleset(Options{
		Resolvers:  []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53"), netip.MustParseAddrPort("[::1]:8753"), netip.MustParseAddrPort("127.0.0.1:8753")},
		ExemptUIDs: []uint32{998}, RawIP: true, AllowLoopback: true, SetTimeout: 30 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	writeGolden(t, "testdata/output_rawip.nft", got)
	want := readGolden(t, "testdata/output_rawip.nft")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ruleset (-want +got):\n%s", diff)
	}
	got, err = Ruleset(Options{Table: "sandbox1", Hook: HookForward, Resolvers: []netip.AddrPort{netip.MustParseAddrPort("10.88.0.1:53")}})
	if err != nil {
		t.Fatal(err)
	}
	writeGolden(t, "testdata/forward.nft", got)
	if diff := cmp.Diff(readGolden(t, "testdata/forward.nft"), got); diff != "" {
		t.Errorf("forward ruleset (-want +got):\n%s", diff)
	}
}

func TestRulesetRejects(t *testing.T) {
	r := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53")}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no resolvers", Options{}, "bad firewall options: no resolvers: name at least one listener"},
		{"bad table", Options{Table: "x;y", Resolvers: r}, `bad firewall options: table "x;y": want a letter then letters, digits or _`},
		{"bad hook", Options{Hook: "input", Resolvers: r}, `bad firewall options: hook "input": want output or forward`},
		{"exempt on forward", Options{Hook: HookForward, ExemptUIDs: []uint32{0}, Resolvers: r}, "bad firewall options: exempt users apply to the output hook only (forwarded packets have no local user)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Ruleset(tc.o)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestResolvedAndDocker(t *testing.T) {
	rs := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:53"), netip.MustParseAddrPort("[::1]:8753")}
	got := ResolvedDropIn(rs)
	if !strings.Contains(got, "\nDNS=127.0.0.1 [::1]:8753\nFallbackDNS=\nDomains=~.\n") {
		t.Errorf("drop-in:\n%s", got)
	}
	setting, note := DockerDaemon(rs)
	if setting != "{\n  \"dns\": [\n    \"127.0.0.1\"\n  ]\n}\n" {
		t.Errorf("docker setting:\n%s", setting)
	}
	if note != "Docker asks port 53 only: [::1]:8753 left out; add a listener on port 53 at an address containers reach (e.g. the bridge gateway)" {
		t.Errorf("note = %q", note)
	}
}
