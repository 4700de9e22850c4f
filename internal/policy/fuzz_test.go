package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzClassify checks the invariants of the classifier on any input; the
// seed corpus is in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	fx := newFixture(f)
	modes := []Mode{ModeAsk, ModeAllow, ModeReadOnly, ModeDeny}
	classifiers := make(map[Mode]*Classifier, len(modes))
	for _, m := range modes {
		classifiers[m] = fx.classifier(f, fx.config(m))
	}
	f.Add(hermesReadProbe)
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, m := range modes {
			v := classifiers[m].Classify(cmd, fx.ws)
			switch v.Decision {
			case Allow, Ask, Deny:
			default:
				t.Fatalf("%s: Classify(%q) decision %q", m, cmd, v.Decision)
			}
			if v.Rule == "" || v.Reason == "" {
				t.Errorf("%s: Classify(%q) has an empty rule or reason: %+v", m, cmd, v)
			}
			if (v.Decision == Ask) != (v.Approval == "") {
				t.Errorf("%s: Classify(%q) = %s with approval %q", m, cmd, v.Decision, v.Approval)
			}
			if m == ModeAsk && v.Decision == Allow && v.Approval == ByPolicy && !v.Safe {
				t.Errorf("ask mode allowed %q by policy, but it is not safe (rule %s)", cmd, v.Rule)
			}
			if m == ModeDeny && v.Decision == Allow {
				t.Errorf("deny mode allowed %q (rule %s)", cmd, v.Rule)
			}
		}
		if _, err := parseBash(cmd); err != nil {
			return
		}
		for _, suffix := range []string{"; sudo id", "\nsudo id"} {
			full := cmd + suffix
			if !runsSudoLast(full) {
				continue
			}
			for _, m := range modes {
				if v := classifiers[m].Classify(full, fx.ws); v.Decision != Deny {
					t.Errorf("%s: Classify(%q) = %s (%s), want deny", m, full, v.Decision, v.Rule)
				}
			}
		}
	})
}

// runsSudoLast reports whether bash runs `sudo id` on its own as the last
// statement of src. Appending "; sudo id" to a command that parses does
// not always do that: a trailing comment or backslash swallows it. Inputs
// the classifier refuses to parse (too long, nested too deep) are left out.
func runsSudoLast(src string) bool {
	if len(src) > MaxCommandBytes || rawNesting(src) > maxRawNesting {
		return false
	}
	f, err := parseBash(src)
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	last := f.Stmts[len(f.Stmts)-1]
	ce, ok := last.Cmd.(*syntax.CallExpr)
	return ok && len(ce.Assigns) == 0 && len(ce.Args) == 2 &&
		ce.Args[0].Lit() == "sudo" && ce.Args[1].Lit() == "id" && !strings.Contains(src, "\x00")
}
