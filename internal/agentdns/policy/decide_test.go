package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustList(t *testing.T, rule string, patterns ...string) *List {
	t.Helper()
	var b ListBuilder
	for _, p := range patterns {
		r := rule
		if r == "" {
			r = "allow:" + p
		}
		if err := b.Add(p, r); err != nil {
			t.Fatalf("Add(%q): %v", p, err)
		}
	}
	return b.Build()
}

func TestDecide(t *testing.T) {
	allow := mustList(t, "", "api.openai.com", "*.github.com", "both.example")
	var db ListBuilder
	for _, p := range []string{"*.pastebin.com", "both.example"} {
		if err := db.Add(p, "deny:"+p); err != nil {
			t.Fatal(err)
		}
	}
	deny := db.Build()
	base := &Policy{Name: "p", Mode: Enforce, Default: Deny, HoldFirstSeen: true, Allow: allow, Deny: deny}
	learn := base.WithMode(Learn)
	noHold := *base
	noHold.HoldFirstSeen = false
	noHoldAllow := noHold.WithDefault(Allow)

	tests := []struct {
		name string
		p    *Policy
		qn   string
		s    Standing
		want Decision
	}{
		{"deny list beats allow list", base, "both.example", Unknown, Decision{Refuse, "deny:both.example"}},
		{"deny list beats a person's approval", base, "x.pastebin.com", Approved, Decision{Refuse, "deny:*.pastebin.com"}},
		{"person's deny beats allow list", base, "api.openai.com", Denied, Decision{Refuse, RulePersonDenied}},
		{"allow list exact", base, "api.openai.com", Unknown, Decision{Resolve, "allow:api.openai.com"}},
		{"allow list suffix", base, "raw.github.com", Unknown, Decision{Resolve, "allow:*.github.com"}},
		{"suffix does not match apex", base, "github.com", Unknown, Decision{Hold, RuleHold}},
		{"approved resolves in enforce", base, "new.example", Approved, Decision{Resolve, RulePersonApproved}},
		{"learn allows first seen", learn, "new.example", Unknown, Decision{Resolve, RuleLearn}},
		{"learn allows a held name", learn, "new.example", Held, Decision{Resolve, RuleLearn}},
		{"learn still denies deny list", learn, "a.pastebin.com", Unknown, Decision{Refuse, "deny:*.pastebin.com"}},
		{"learn still honours a person's deny", learn, "new.example", Denied, Decision{Refuse, RulePersonDenied}},
		{"enforce resolves the baseline", base, "seen.example", Learned, Decision{Resolve, RuleBaseline}},
		{"enforce holds first seen", base, "new.example", Unknown, Decision{Hold, RuleHold}},
		{"enforce keeps holding", base, "new.example", Held, Decision{Hold, RuleHold}},
		{"no hold, default deny", &noHold, "new.example", Unknown, Decision{Refuse, RuleDefaultDeny}},
		{"no hold, default allow", noHoldAllow, "new.example", Held, Decision{Resolve, RuleDefaultAllow}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.Decide(tc.qn, tc.s)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decide(%q, %v) (-want +got):\n%s", tc.qn, tc.s, diff)
			}
		})
	}
}

func TestWithModeLeavesOriginal(t *testing.T) {
	p := &Policy{Name: "p", Mode: Learn, Default: Allow}
	q := p.WithMode(Enforce).WithDefault(Deny)
	if p.Mode != Learn || p.Default != Allow || q.Mode != Enforce || q.Default != Deny {
		t.Fatalf("got original %+v, copy %+v", p, q)
	}
}

func TestParse(t *testing.T) {
	if m, err := ParseMode("enforce"); m != Enforce || err != nil {
		t.Errorf("ParseMode(enforce) = %q, %v", m, err)
	}
	if _, err := ParseMode("lurn"); err == nil || err.Error() != `mode "lurn": want learn or enforce` {
		t.Errorf("ParseMode(lurn) error = %v", err)
	}
	if a, err := ParseAction("deny"); a != Deny || err != nil {
		t.Errorf("ParseAction(deny) = %q, %v", a, err)
	}
	if _, err := ParseAction("drop"); err == nil || err.Error() != `action "drop": want allow or deny` {
		t.Errorf("ParseAction(drop) error = %v", err)
	}
}
