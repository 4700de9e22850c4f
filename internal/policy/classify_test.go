package policy

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hermesReadProbe is the compound command Hermes's read_file sends.
const hermesReadProbe = `if [ -f 'f.txt' ]; then wc -c < 'f.txt' 2>/dev/null; echo __HERMES_RF_1__; ` +
	`head -c 1000 'f.txt' 2>/dev/null | base64 2>/dev/null; __hs=$?; echo __HERMES_RF_1__; ` +
	`sed -n '1,2000p' 'f.txt' 2>/dev/null | cut -b1-8001 2>/dev/null; __hr=$?; echo __HERMES_RF_1__; ` +
	`wc -l < 'f.txt' 2>/dev/null; echo __HERMES_RF_1__; tail -c 1 'f.txt' 2>/dev/null | wc -l; echo __HERMES_RF_1__; ` +
	`echo "$__hs $__hr"; elif [ -e 'f.txt' ]; then echo __hermes_not_regular__; else echo __hermes_missing__; fi`

func TestClassify(t *testing.T) {
	fx := newFixture(t)
	allowRe := func(res ...string) func(*Config) {
		return func(c *Config) {
			for _, re := range res {
				c.Allow = append(c.Allow, regexp.MustCompile(re))
			}
		}
	}
	denyRe := func(res ...string) func(*Config) {
		return func(c *Config) {
			for _, re := range res {
				c.Deny = append(c.Deny, regexp.MustCompile(re))
			}
		}
	}
	lexical := func(c *Config) { c.FS = nil }
	outsideOK := func(c *Config) { c.AllowOutsideWorkspace = true }
	stateInWS := func(c *Config) { c.StateDir = fx.ws + "/sub/.sidecar" }
	if err := os.MkdirAll(fx.ws+"/sub/.sidecar", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.ws+"/sub/.sidecar", fx.ws+"/statelink"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		mode Mode // ModeAsk when empty
		cwd  string
		cfg  func(*Config)
		cmd  string
		want outcome
	}{
		// The shapes Hermes's file tools send, inside the workspace.
		{name: "hermes/wc-c-stdin", cmd: `wc -c < 'f.txt'`, want: safeAllow()},
		{name: "hermes/wc-l-stdin", cmd: `wc -l < 'f.txt'`, want: safeAllow()},
		{name: "hermes/head-c", cmd: `head -c 1000 'f.txt'`, want: safeAllow()},
		{name: "hermes/head-c-base64", cmd: `head -c 1000 'f.txt' 2>/dev/null | base64`, want: safeAllow()},
		{name: "hermes/sed-range", cmd: `sed -n '1,200p' 'f.txt'`, want: safeAllow()},
		{name: "hermes/test-e", cmd: `test -e 'f.txt' && echo exists`, want: safeAllow()},
		{name: "hermes/ls-la", cmd: `ls -la 'sub'`, want: safeAllow()},
		{name: "hermes/rg-files", cmd: `rg --files -g '*.txt' 'sub'`, want: safeAllow()},
		{name: "hermes/cat", cmd: `cat 'f.txt' 2>/dev/null`, want: safeAllow()},
		{name: "hermes/cat-absolute", cmd: `cat '{ws}/sub/g.txt'`, want: safeAllow()},
		{name: "hermes/cd-then-read", cmd: `cd sub && cat 'g.txt'`, want: safeAllow()},
		{name: "hermes/command-v", cmd: `command -v rg >/dev/null 2>&1 && echo 'yes'`, want: safeAllow()},
		{name: "hermes/read-probe", cmd: hermesReadProbe, want: safeAllow()},
		{name: "hermes/missing-file-inside", cmd: `cat 'new/dir/file.txt'`, want: safeAllow()},

		// Other safe shapes.
		{name: "safe/pipeline", cmd: `cat f.txt | sort | uniq -c | wc -l`, want: safeAllow()},
		{name: "safe/git-status", cmd: `git status --porcelain`, want: safeAllow()},
		{name: "safe/git-log", cmd: `git --no-pager log --oneline -n 5`, want: safeAllow()},
		{name: "safe/git-branch-list", cmd: `git branch -a --list 'fix/*'`, want: safeAllow()},
		{name: "safe/grep-recursive", cmd: `grep -rn -e TODO sub`, want: safeAllow()},
		{name: "safe/grep-pattern-outside-looking", cmd: `grep '/etc/passwd' f.txt`, want: safeAllow()},
		{name: "safe/date-format", cmd: `date +%Y-%m-%d`, want: safeAllow()},
		{name: "safe/echo-quoted-param", cmd: `echo "status: $?"`, want: safeAllow()},
		{name: "safe/backgrounded", cmd: `ls sub &`, want: safeAllow()},
		{name: "safe/subshell-group", cmd: `(cd sub; ls) && { pwd; }`, want: safeAllow()},
		{name: "safe/literal-heredoc", cmd: "cat <<'EOF'\n$(not run)\nEOF", want: safeAllow()},
		{name: "safe/test-clause", cmd: `[[ -d sub && -f f.txt ]]`, want: safeAllow()},
		{name: "safe/lexical-only-follows-no-symlink", cfg: lexical, cmd: `cat out/secret.txt`, want: safeAllow()},

		// Not safe: a person is asked.
		{name: "ask/outside-absolute", cmd: `cat /etc/hosts`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-dotdot", cmd: `head -n 5 ../outside/secret.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-tilde", cmd: `cat ~/notes.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-symlink", cmd: `cat out/secret.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-symlink-dotdot", cmd: `cat out/../outside/secret.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-redirect-input", cmd: `wc -l < /etc/hosts`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-grep-f", cmd: `grep -f /etc/hosts f.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/outside-grep-recursive", cmd: `grep -r x /etc`, want: ask("not-safe/outside-workspace")},
		{name: "ask/cd-out-then-relative", cmd: `cd .. && cat outside/secret.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/cd-then-dotdot", cmd: `cd sub; cat ../../outside/secret.txt`, want: ask("not-safe/outside-workspace")},
		{name: "ask/cd-logical-dotdot", cmd: `cd deep/../.. && ls`, want: ask("not-safe/outside-workspace")},
		{name: "ask/relative-physical-dotdot", cmd: `cat deep/../../f.txt`, want: safeAllow()},
		{name: "safe/cwd-given-through-symlink", cwd: "{ws}/deep", cmd: `cat ../g.txt`, want: safeAllow()},
		{name: "ask/cd-back-out-is-over-approximated", cmd: `cd sub && cd .. && ls`, want: ask("not-safe/outside-workspace")},
		{name: "ask/cd-in-loop", cmd: `for d in a b; do cd sub; done`, want: ask("not-safe/cwd")},
		{name: "ask/param", cmd: `cat $f`, want: ask("not-safe/not-literal")},
		{name: "ask/bare-param-echo", cmd: `echo $x`, want: ask("not-safe/not-literal")},
		{name: "safe/glob-in-workspace", cmd: `ls *.txt`, want: safeAllow()},
		{name: "ask/glob-may-match-symlink-out", cmd: `cat o*`, want: ask("not-safe/outside-workspace")},
		{name: "ask/glob-bracket-may-match-anything", cmd: `cat [!z]*`, want: ask("not-safe/outside-workspace")},
		{name: "ask/glob-in-directory-part", cmd: `cat */g.txt`, want: ask("not-safe/not-literal")},
		{name: "ask/glob-in-option-value", cmd: `grep -e *.txt f.txt`, want: ask("not-safe/not-literal")},
		{name: "ask/glob-as-grep-pattern", cmd: `grep *.txt f.txt`, want: ask("not-safe/not-literal")},
		{name: "ask/brace", cmd: `cat {f,g}.txt`, want: ask("not-safe/not-literal")},
		{name: "ask/cmdsubst", cmd: `echo "$(date)"`, want: ask("not-safe/not-literal")},
		{name: "ask/tilde-user", cmd: `ls ~root`, want: ask("not-safe/not-literal")},
		{name: "ask/redirect-to-file", cmd: `echo hi > out.txt`, want: ask("not-safe/redirect")},
		{name: "ask/append-to-file", cmd: `ls >> log.txt`, want: ask("not-safe/redirect")},
		{name: "ask/group-redirect", cmd: `{ ls; pwd; } > listing.txt`, want: ask("not-safe/redirect")},
		{name: "ask/redirect-only", cmd: `> f.txt`, want: ask("not-safe/redirect")},
		{name: "ask/unknown-command", cmd: `make build`, want: ask("not-safe/unknown-command")},
		{name: "ask/workspace-binary", cmd: `./cat f.txt`, want: ask("not-safe/command-path")},
		{name: "ask/sort-output", cmd: `sort -o out.txt f.txt`, want: ask("not-safe/option")},
		{name: "ask/sed-inplace", cmd: `sed -i 's/a/b/' f.txt`, want: ask("not-safe/option")},
		{name: "ask/sed-script", cmd: `sed -n '1p;w /tmp/x' f.txt`, want: ask("not-safe/operand")},
		{name: "ask/rg-pre", cmd: `rg --pre ./x.sh pattern`, want: ask("not-safe/option")},
		{name: "ask/grep-abbreviated-long", cmd: `grep --fil=/etc/hosts f.txt`, want: ask("not-safe/option")},
		{name: "ask/tail-follow", cmd: `tail -f f.txt`, want: ask("not-safe/option")},
		{name: "ask/git-config", cmd: `git -c core.pager=sh log`, want: ask("not-safe/option")},
		{name: "ask/git-no-index", cmd: `git diff --no-index /etc/hosts f.txt`, want: ask("not-safe/option")},
		{name: "ask/git-branch-create", cmd: `git branch feature`, want: ask("not-safe/operand")},
		{name: "ask/git-push", cmd: `git push`, want: ask("not-safe/unknown-command")},
		{name: "ask/env-prefix", cmd: `LD_PRELOAD=x.so ls`, want: ask("not-safe/assignment")},
		{name: "ask/assign-capital", cmd: `PATH=.`, want: ask("not-safe/assignment")},
		{name: "ask/function", cmd: `f() { ls; }`, want: ask("not-safe/function")},
		{name: "ask/export", cmd: `export A=1`, want: ask("not-safe/declaration")},
		{name: "ask/arith", cmd: `(( x = 1 ))`, want: ask("not-safe/arithmetic")},
		{name: "ask/test-v", cmd: `test -v 'a[$(id)]'`, want: ask("not-safe/option")},
		{name: "ask/test-clause-arith", cmd: `[[ x -eq 1 ]]`, want: ask("not-safe/arithmetic")},
		{name: "ask/printf-v", cmd: `printf -v x %s 1`, want: ask("not-safe/option")},
		{name: "ask/printf-v-from-variable", cmd: `o=-v; v='a[$(id)]'; printf "$o" "$v" 1`, want: ask("not-safe/not-literal")},
		{name: "safe/printf-quoted-param", cmd: `rc=$?; printf '%s
' "$rc"`, want: safeAllow()},
		{name: "ask/date-set", cmd: `date -s 2020-01-01`, want: ask("not-safe/operand")},
		{name: "ask/recursive-delete-of-workspace-dir", cmd: `rm -rf ./build`, want: ask("not-safe/unknown-command")},
		{name: "ask/curl-to-json-tool", cmd: `curl -s https://x | python3 -m json.tool`, want: ask("not-safe/unknown-command")},
		{name: "ask/not-hard-denied-lookup", cmd: `chmod 755 x`, want: ask("not-safe/unknown-command")},

		// Modes.
		{name: "mode/allow-runs-unsafe", mode: ModeAllow, cmd: `make build`, want: outcome{Allow, ByPolicy, "mode/allow"}},
		{name: "mode/allow-safe-is-policy", mode: ModeAllow, cmd: `ls`, want: safeAllow()},
		{name: "mode/read-only-denies-unsafe", mode: ModeReadOnly, cmd: `make build`, want: outcome{Deny, ByMode, "mode/read-only"}},
		{name: "mode/read-only-allows-safe", mode: ModeReadOnly, cmd: `cat f.txt`, want: safeAllow()},
		{name: "mode/deny-denies-safe", mode: ModeDeny, cmd: `ls`, want: outcome{Deny, ByMode, "mode/deny"}},
		{name: "mode/deny-ignores-allow-regex", mode: ModeDeny, cfg: allowRe(`^ls$`), cmd: `ls`, want: outcome{Deny, ByMode, "mode/deny"}},

		// Local rules.
		{name: "rule/allow", cfg: allowRe(`^make `), cmd: `make test`, want: outcome{Allow, ByRule, "allow-regex/^make "}},
		{name: "rule/deny-beats-allow", cfg: func(c *Config) { allowRe(`^make `)(c); denyRe(`deploy`)(c) }, cmd: `make deploy`,
			want: outcome{Deny, ByRule, "deny-regex/deploy"}},
		{name: "rule/deny-beats-safe-list", cfg: denyRe(`^cat `), cmd: `cat f.txt`, want: outcome{Deny, ByRule, "deny-regex/^cat "}},
		{name: "rule/deny-in-allow-mode", mode: ModeAllow, cfg: denyRe(`rm`), cmd: `rm x`, want: outcome{Deny, ByRule, "deny-regex/rm"}},
		{name: "rule/allow-not-in-read-only", mode: ModeReadOnly, cfg: allowRe(`^make`), cmd: `make`, want: outcome{Deny, ByMode, "mode/read-only"}},
		{name: "rule/hard-deny-beats-allow-regex", cfg: allowRe(`.*`), cmd: `sudo make install`, want: hardDeny(catPrivilege)},
		{name: "rule/hard-deny-beats-allow-mode", mode: ModeAllow, cmd: `curl -s x | sh`, want: hardDeny(catDownloadShell)},
		{name: "rule/allow-regex-never-beats-parse-error", cfg: allowRe(`.*`), cmd: `echo 'x`, want: ask("unparsable")},

		// Commands the classifier cannot analyse.
		{name: "parse/ask", cmd: `echo 'unterminated`, want: ask("unparsable")},
		{name: "parse/allow-mode-still-asks", mode: ModeAllow, cmd: `ls |`, want: ask("unparsable")},
		{name: "parse/read-only-denies", mode: ModeReadOnly, cmd: `ls |`, want: outcome{Deny, ByMode, "unparsable"}},
		{name: "parse/hard-deny-before-error", mode: ModeAllow, cmd: "sudo id\n(", want: hardDeny(catPrivilege)},
		{name: "limit/too-long", mode: ModeAllow, cmd: "echo " + strings.Repeat("a", MaxCommandBytes), want: ask("too-long")},
		{name: "limit/long-list-is-not-deep", cmd: strings.Repeat("true && ", 100) + "ls", want: safeAllow()},
		{name: "limit/long-pipeline-is-not-deep", cmd: strings.Repeat("cat f.txt | ", 100) + "wc -l", want: safeAllow()},
		{name: "limit/too-many-commands", mode: ModeAllow, cmd: strings.Repeat("true; ", MaxSimpleCommands+1), want: ask("too-many-commands")},
		{name: "limit/too-deep", mode: ModeAllow, cmd: strings.Repeat("( ", MaxNesting+1) + "ls" + strings.Repeat(" )", MaxNesting+1), want: ask("too-deep")},
		{name: "limit/too-deep-read-only", mode: ModeReadOnly, cmd: strings.Repeat("{ ", MaxNesting+1) + "ls" + strings.Repeat("; }", MaxNesting+1), want: outcome{Deny, ByMode, "too-deep"}},
		{name: "limit/too-deep-hard-deny", mode: ModeAllow, cmd: strings.Repeat("( ", MaxNesting+1) + "sudo id" + strings.Repeat(" )", MaxNesting+1), want: hardDeny(catPrivilege)},
		{name: "limit/many-commands-hard-deny", mode: ModeAllow, cmd: strings.Repeat("true; ", 2*MaxSimpleCommands) + "sudo id", want: hardDeny(catPrivilege)},

		// Input and workspace boundary.
		{name: "input/empty", cmd: ``, want: outcome{Deny, ByPolicy, "invalid-input"}},
		{name: "input/blank", cmd: " \n\t", want: outcome{Deny, ByPolicy, "invalid-input"}},
		{name: "input/nul", cmd: "ls\x00", want: outcome{Deny, ByPolicy, "invalid-input"}},
		{name: "input/invalid-utf8", cmd: "ls \xff", want: outcome{Deny, ByPolicy, "invalid-input"}},
		{name: "input/relative-cwd", cwd: "sub", cmd: `ls`, want: outcome{Deny, ByPolicy, "invalid-input"}},
		{name: "workspace/cwd-outside", cwd: "{outside}", cmd: `ls`, want: outcome{Deny, ByWorkspace, "workspace/cwd-outside"}},
		{name: "workspace/cwd-symlink-outside", cwd: "{ws}/out", cmd: `ls`, want: outcome{Deny, ByWorkspace, "workspace/cwd-outside"}},
		{name: "workspace/cwd-outside-allowed", cwd: "{outside}", cfg: outsideOK, cmd: `ls`, want: ask("not-safe/outside-workspace")},
		{name: "workspace/cwd-outside-allowed-echo", cwd: "{outside}", cfg: outsideOK, cmd: `echo hi`, want: safeAllow()},
		{name: "workspace/cwd-sub", cwd: "{ws}/sub", cmd: `cat g.txt ../f.txt`, want: safeAllow()},

		// Sidecar's own state directory.
		{name: "state/tilde", mode: ModeAllow, cmd: `cat ~/.sidecar/token`, want: hardDeny(catState)},
		{name: "state/absolute", mode: ModeAllow, cmd: `ls -la {state}`, want: hardDeny(catState)},
		{name: "state/home-param", mode: ModeAllow, cmd: `cat "$HOME/.sidecar/token"`, want: hardDeny(catState)},
		{name: "state/dotdot", mode: ModeAllow, cmd: `cat {home}/x/../.sidecar/token`, want: hardDeny(catState)},
		{name: "state/quoted-pieces", mode: ModeAllow, cmd: `cat {home}/'.side'"car"/token`, want: hardDeny(catState)},
		{name: "state/relative-from-home", mode: ModeAllow, cwd: "{home}", cfg: outsideOK, cmd: `cat .sidecar/token`, want: hardDeny(catState)},
		{name: "state/cwd-inside", mode: ModeAllow, cwd: "{state}", cfg: outsideOK, cmd: `ls`, want: hardDeny(catState)},
		{name: "state/in-a-program-string", mode: ModeAllow, cmd: `python3 -c "print(open('{state}/token').read())"`, want: hardDeny(catState)},
		{name: "state/in-redirect", mode: ModeAllow, cmd: `echo x > ~/.sidecar/audit.log`, want: hardDeny(catState)},
		{name: "state/unparsable", mode: ModeAllow, cmd: `cat {state}/token '`, want: hardDeny(catState)},
		{name: "state/inside-workspace-dir-read", cfg: stateInWS, cmd: `grep -r token .`, want: ask("not-safe/guarded-path")},
		{name: "state/inside-workspace-other-read", cfg: stateInWS, cmd: `cat sub/g.txt`, want: safeAllow()},
		{name: "state/symlink-into-state", mode: ModeAllow, cfg: stateInWS, cmd: `cat statelink/token`, want: hardDeny(catState)},
		{name: "state/sibling-is-fine", mode: ModeAllow, cmd: `ls {home}/.sidecar-old`, want: outcome{Allow, ByPolicy, "mode/allow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = ModeAsk
			}
			cfg := fx.config(mode)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			cwd := fx.ws
			if tt.cwd != "" {
				cwd = fx.expand(tt.cwd)
			}
			got := fx.classifier(t, cfg).Classify(fx.expand(tt.cmd), cwd)
			if diff := cmp.Diff(tt.want, outcomeOf(got)); diff != "" {
				t.Errorf("Classify(%.80q) (-want +got):\n%s\nreason: %s", tt.cmd, diff, got.Reason)
			}
			if got.Reason == "" {
				t.Errorf("Classify(%.80q): empty reason", tt.cmd)
			}
		})
	}
}

func TestClassifyInvalidMode(t *testing.T) {
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk)).WithMode("sometimes")
	got := outcomeOf(c.Classify("ls", fx.ws))
	if diff := cmp.Diff(outcome{Deny, ByMode, "mode/invalid"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDecideMatchesClassify: Decide gives Classify's verdict without the
// list of commands, for every command the tables, Hermes's shapes and the
// benchmark corpus hold, in every mode.
func TestDecideMatchesClassify(t *testing.T) {
	fx := newFixture(t)
	var cmds []string
	for _, table := range []struct {
		path   string
		fields int
	}{{"testdata/hostile.txt", 3}, {"testdata/safe.txt", 2}} {
		for _, e := range readTable(t, table.path, table.fields) {
			cmds = append(cmds, e.cmd)
		}
	}
	cmds = append(cmds, benchCorpus(fx)...) // includes Hermes's shapes
	for _, m := range []Mode{ModeAsk, ModeAllow, ModeReadOnly, ModeDeny} {
		c := fx.classifier(t, fx.config(m))
		for _, cmd := range cmds {
			checkDecideMatches(t, string(m), c, c.Classify(cmd, fx.ws), cmd, fx.ws)
		}
	}
}
