package policy

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tableEntry is one line of testdata/hostile.txt or testdata/safe.txt.
type tableEntry struct {
	kind, name, cmd string
	line            int
}

// readTable reads a command table; fields is 3 for hostile.txt (KIND NAME
// COMMAND) and 2 for safe.txt (NAME COMMAND).
func readTable(t *testing.T, path string, fields int) []tableEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tableEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var head []string
		rest := line
		for range fields - 1 {
			field, after, ok := strings.Cut(rest, " ")
			if !ok {
				t.Fatalf("%s:%d: want %d fields", path, n, fields)
			}
			head = append(head, field)
			rest = strings.TrimLeft(after, " ")
		}
		if strings.HasPrefix(rest, `"`) {
			if unq, err := strconv.Unquote(rest); err == nil {
				rest = unq
			}
		}
		e := tableEntry{name: head[len(head)-1], cmd: rest, line: n}
		if fields == 3 {
			e.kind = head[0]
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileTable runs testdata/hostile.txt: no entry is ever safe; each
// "deny" entry is denied in every mode, even with rules allowing
// everything.
func TestHostileTable(t *testing.T) {
	entries := readTable(t, "testdata/hostile.txt", 3)
	if len(entries) < 100 {
		t.Fatalf("hostile.txt has %d entries, want at least 100", len(entries))
	}
	fx := newFixture(t)
	allowAll := fx.config(ModeAllow)
	allowAll.Allow = []*regexp.Regexp{regexp.MustCompile(`.*`)}
	allowAll.File = &File{Path: "policy.yaml", Allow: everyPrefix(entries)}
	configs := map[string]*Classifier{
		"ask":       fx.classifier(t, fx.config(ModeAsk)),
		"read-only": fx.classifier(t, fx.config(ModeReadOnly)),
		"allow-all": fx.classifier(t, allowAll),
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			cmd := fx.expand(e.cmd)
			for name, c := range configs {
				v := c.Classify(cmd, fx.ws)
				if v.Safe {
					t.Errorf("line %d, %s: Classify(%q) is safe (%s)", e.line, name, cmd, v.Rule)
				}
				switch {
				case e.kind == "deny" && v.Decision != Deny:
					t.Errorf("line %d, %s: Classify(%q) = %s (%s: %s), want deny", e.line, name, cmd, v.Decision, v.Rule, v.Reason)
				case e.kind == "never" && name == "ask" && v.Decision == Allow:
					t.Errorf("line %d, ask: Classify(%q) = allow (%s)", e.line, cmd, v.Rule)
				case e.kind == "never" && name == "read-only" && v.Decision != Deny:
					t.Errorf("line %d, read-only: Classify(%q) = %s (%s), want deny", e.line, cmd, v.Decision, v.Rule)
				case e.kind != "deny" && e.kind != "never":
					t.Fatalf("line %d: unknown kind %q", e.line, e.kind)
				}
			}
		})
	}
}

// everyPrefix is an allow prefix rule for the first word of every entry:
// the loosest policy file a person could write for the table.
func everyPrefix(entries []tableEntry) []FileRule {
	seen := map[string]bool{}
	var out []FileRule
	for _, e := range entries {
		first := strings.Fields(e.cmd)
		if len(first) == 0 || seen[first[0]] || strings.ContainsAny(first[0], "'\"\\$`;&|<>(){}[]*?~#=/") {
			continue
		}
		seen[first[0]] = true
		out = append(out, FileRule{Prefix: first[0], words: first[:1], Line: e.line})
	}
	return out
}

// TestSafeTable runs testdata/safe.txt: each entry runs without a prompt.
func TestSafeTable(t *testing.T) {
	entries := readTable(t, "testdata/safe.txt", 2)
	if len(entries) < 30 {
		t.Fatalf("safe.txt has %d entries, want at least 30", len(entries))
	}
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk))
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			cmd := fx.expand(e.cmd)
			v := c.Classify(cmd, fx.ws)
			if v.Decision != Allow || v.Approval != ByPolicy || !v.Safe {
				t.Errorf("line %d: Classify(%q) = %s %s (%s: %s), want allow by the safe list", e.line, cmd, v.Decision, v.Approval, v.Rule, v.Reason)
			}
		})
	}
}
