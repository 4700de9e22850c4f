package policy

import (
	"errors"
	"net/netip"
	"testing"
)

func TestListMatch(t *testing.T) {
	l := mustList(t, "", "example.com", "*.example.com", "*.deep.example.org", "exact.example.org")
	tests := []struct {
		name, qn, want string
		ok             bool
	}{
		{"exact", "example.com", "allow:example.com", true},
		{"exact preferred over suffix", "exact.example.org", "allow:exact.example.org", true},
		{"one label below", "a.example.com", "allow:*.example.com", true},
		{"many labels below", "a.b.c.example.com", "allow:*.example.com", true},
		{"apex of a suffix only", "deep.example.org", "", false},
		{"below deep suffix", "x.deep.example.org", "allow:*.deep.example.org", true},
		{"label boundary respected", "notexample.com", "", false},
		{"unrelated", "example.net", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := l.Match(tc.qn)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Match(%q) = %q, %v; want %q, %v", tc.qn, got, ok, tc.want, tc.ok)
			}
		})
	}
	var nilList *List
	if _, ok := nilList.Match("a"); ok || nilList.Len() != 0 {
		t.Error("nil list matched")
	}
}

func TestListAddNormalizesAndKeepsFirstRule(t *testing.T) {
	var b ListBuilder
	for _, a := range [][2]string{{"API.OpenAI.com.", "first"}, {"api.openai.com", "second"}} {
		if err := b.Add(a[0], a[1]); err != nil {
			t.Fatal(err)
		}
	}
	l := b.Build()
	if r, ok := l.Match("api.openai.com"); !ok || r != "first" || l.Len() != 1 {
		t.Errorf("Match = %q, %v, Len %d; want first, true, 1", r, ok, l.Len())
	}
}

func TestCheckPattern(t *testing.T) {
	long := ""
	for i := 0; i < 64; i++ {
		long += "a"
	}
	tests := []struct {
		p  string
		ok bool
	}{
		{"example.com", true},
		{"*.example.com", true},
		{"_dmarc.example.com", true},
		{"xn--bcher-kva.example", true},
		{"", false},
		{"*", false},
		{"a.*.example.com", false},
		{"example..com", false},
		{"exa mple.com", false},
		{long + ".com", false},
	}
	for _, tc := range tests {
		err := CheckPattern(tc.p)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPattern(%q) = %v, want ok=%v", tc.p, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadPattern) {
			t.Errorf("CheckPattern(%q) error %v is not ErrBadPattern", tc.p, err)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"Example.COM.": "example.com", "a.b": "a.b", ".": ""} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClientsMatch(t *testing.T) {
	c := Clients{Listeners: []string{"sandbox"}, Sources: []netip.Prefix{netip.MustParsePrefix("10.88.0.0/16"), netip.MustParsePrefix("fd00::/8")}}
	tests := []struct {
		name, listener, addr string
		want                 bool
	}{
		{"by listener", "sandbox", "127.0.0.1", true},
		{"by v4 source", "main", "10.88.3.4", true},
		{"by v4-mapped source", "main", "::ffff:10.88.3.4", true},
		{"by v6 source", "main", "fd12::1", true},
		{"neither", "main", "127.0.0.1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Match(tc.listener, netip.MustParseAddr(tc.addr)); got != tc.want {
				t.Errorf("Match(%q, %s) = %v, want %v", tc.listener, tc.addr, got, tc.want)
			}
		})
	}
}
