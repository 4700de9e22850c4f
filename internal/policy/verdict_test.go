package policy

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClassifyVerdict compares whole verdicts, simple commands included.
func TestClassifyVerdict(t *testing.T) {
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk))
	tests := []struct {
		name string
		cmd  string
		want Verdict
	}{
		{
			name: "safe-with-redirects",
			cmd:  `cd sub && wc -l < 'g.txt' 2>/dev/null`,
			want: Verdict{
				Decision: Allow, Approval: ByPolicy, Rule: "safe-list",
				Reason: "every command only reads the workspace or prints", Safe: true,
				Commands: []SimpleCommand{
					{Args: []string{"cd", "sub"}, Literal: true, Safe: true},
					{Args: []string{"wc", "-l"}, Literal: true, Safe: true,
						Redirects: []Redirect{{Op: "<", Target: "g.txt"}, {Op: "2>", Target: "/dev/null"}}},
				},
			},
		},
		{
			name: "non-literal-and-file-redirect",
			cmd:  `FOO=1 cat "$f" > out.txt; echo "done"`,
			want: Verdict{
				Decision: Ask, Rule: "not-safe/redirect",
				Reason: ">out.txt writes to a file; a person has to approve it",
				Commands: []SimpleCommand{
					{Args: []string{"cat", `"$f"`}, Assigns: []string{"FOO=1"},
						Redirects: []Redirect{{Op: ">", Target: "out.txt"}}, Why: ">out.txt writes to a file"},
					{Args: []string{"echo", "done"}, Literal: true, Safe: true},
				},
			},
		},
		{
			name: "inherited-redirect",
			cmd:  `{ ls; } 2>&1 > listing.txt`,
			want: Verdict{
				Decision: Ask, Rule: "not-safe/redirect",
				Reason: ">listing.txt writes to a file; a person has to approve it",
				Commands: []SimpleCommand{
					{Args: []string{"ls"}, Literal: true, Safe: true,
						Redirects: []Redirect{{Op: "2>&", Target: "1"}, {Op: ">", Target: "listing.txt"}}},
				},
			},
		},
		{
			name: "hard-deny-lists-commands",
			cmd:  `echo $(\sudo id)`,
			want: Verdict{
				Decision: Deny, Approval: ByHardDeny, Rule: "hard-deny/privilege-escalation",
				Reason: "privilege escalation (sudo) is never run through Sidecar, whatever the mode or local rules",
				Commands: []SimpleCommand{
					{Args: []string{"echo", `$(\sudo id)`}, Why: "$(\\sudo id) holds a command or process substitution"},
					{Args: []string{"sudo", "id"}, Literal: true, Why: "sudo is not on the safe list"},
				},
			},
		},
		{
			name: "test-clause-and-declaration",
			cmd:  `[[ -f f.txt ]] && export A=1`,
			want: Verdict{
				Decision: Ask, Rule: "not-safe/declaration",
				Reason: "export sets shell variables or their attributes; a person has to approve it",
				Commands: []SimpleCommand{
					{Args: []string{"[[", "-f", "f.txt", "]]"}, Literal: true, Safe: true},
					{Args: []string{"export", "A=1"}, Literal: true, Why: "export sets shell variables or their attributes"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.Classify(tt.cmd, fx.ws)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify(%q) (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
}

// TestVerdictJSON pins the wire names of the verdict.
func TestVerdictJSON(t *testing.T) {
	v := Verdict{Decision: Ask, Rule: "not-safe/redirect", Reason: "r",
		Commands: []SimpleCommand{{Args: []string{"ls"}, Literal: true, Redirects: []Redirect{{Op: ">", Target: "x"}}, Why: "w"}}}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"decision":"ask","rule":"not-safe/redirect","reason":"r","safe":false,` +
		`"commands":[{"args":["ls"],"literal":true,"redirects":[{"op":"\u003e","target":"x"}],"safe":false,"why":"w"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
