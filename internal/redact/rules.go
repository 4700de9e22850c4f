package redact

import (
	"regexp"
	"strings"
)

// rule is one compiled pattern. The text of every group named "s" that takes
// part in a match is a secret; the rest of the match is context and stays.
type rule struct {
	re           *regexp.Regexp
	secretGroups []int    // indexes of the groups named "s"
	hints        []string // lower-case; a match contains one of them
}

// mayMatch reports whether r can match a string whose lower-case form is
// lower. Go's regexp scans the whole string for every rule; most commands
// hold none of the words a secret comes with, and this check is what keeps
// redaction cheap for them. A rule without hints always runs.
func (r rule) mayMatch(lower string) bool {
	if len(r.hints) == 0 {
		return true
	}
	for _, h := range r.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// pattern is a rule before compiling: the expression and the lower-case
// substrings of which every match must contain at least one.
type pattern struct {
	expr  string
	hints []string
}

// secretNameHints are the substrings every secretName match contains.
var secretNameHints = []string{"pass", "token", "secret", "key"}

// ruleSet is applied in order; contexts that name a secret (headers,
// assignments, flags, URLs, key blocks) come before bare token shapes so that
// the whole value, not just a recognised token inside it, is hidden.
type ruleSet []rule

// rules is compiled once and only read afterwards.
var rules = compileRules(
	// PEM private key blocks, newlines real or written as \n.
	pattern{`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?P<s>(?s:.*?))(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)`, []string{"private key"}},
	// A block whose END marker is missing: hide the key material that
	// follows, but not an ordinary argument after a quoted marker (grep).
	pattern{`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?P<s>[A-Za-z0-9+/=\s\\:,-]{16,})`, []string{"private key"}},

	// HTTP Authorization header, with or without a scheme word.
	pattern{`(?i)(authorization[ \t]*:[ \t]*(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?)(?P<s>[^\s'"]+)`, []string{"authorization"}},
	// A bearer token outside an Authorization header.
	pattern{`(?i)\b(bearer[ \t]+)(?P<s>[A-Za-z0-9._~+/-]{8,}=*)`, []string{"bearer"}},

	// Credentials in a URL: scheme://user:password@host. The password runs
	// to the last @ before the path, so an unescaped @ in it is hidden too.
	pattern{`([A-Za-z][A-Za-z0-9+.-]*://[^/?#\s:@'"]*:)(?P<s>[^/?#\s'"]+)@`, []string{"://"}},

	// JSON members: "password": "…", and the same with escaped quotes as
	// they appear inside a double-quoted shell word.
	pattern{`(?i)("[A-Za-z0-9_.-]*` + secretName + `"[ \t]*:[ \t]*")(?P<s>(?:[^"\\]|\\.)*)(")`, secretNameHints},
	pattern{`(?i)(\\"[A-Za-z0-9_.-]*` + secretName + `\\"[ \t]*:[ \t]*\\")(?P<s>(?:[^"\\]|\\[^"])*)(\\")`, secretNameHints},

	// Assignments and --flag=value: password=…, GITHUB_TOKEN=…,
	// --api-key=…, ?token=…&. A value that is a $variable is not a secret
	// and stays visible.
	pattern{`(?i)([A-Za-z0-9_.-]*` + secretName + `[ \t]*=[ \t]*)` + value, secretNameHints},
	// --password value, --token 'value'. A next word that starts with a
	// dash is another flag (mysql --password -h db).
	pattern{`(?i)(--[A-Za-z0-9_.-]*` + secretName + `[ \t]+)(?:"(?P<s>(?:[^"\\]|\\.)*)"|'(?P<s>[^']*)'|(?P<s>[^\s'"$&;|<>()` + "`" + `-][^\s'"&;|<>()` + "`" + `]*))`, secretNameHints},
	// Header and YAML style: X-Auth-Token: …, PRIVATE-TOKEN: …,
	// secret: …. The value stops at @ so that a URL's user:password@host
	// keeps its host.
	pattern{`(?i)([A-Za-z0-9_.-]*` + secretName + `[ \t]*:[ \t]*)(?P<s>[^\s'"$@/:][^\s'"@]*)`, secretNameHints},
	// Tools that take a password as a short option: curl -u user:pass,
	// sshpass -p pass, mysql -ppass. The tool must come first in the same
	// pipeline stage, so that docker -u 1000:1000 stays as it is.
	pattern{`(\bcurl\b[^|;&\n]*?\s(?:-u|--user)(?:[ \t]+|=)?)(?:'[^':]*:(?P<s>[^']*)'|"[^":]*:(?P<s>(?:[^"\\]|\\.)*)"|[^\s:'"]*:(?P<s>[^\s'"]+))`, []string{"curl"}},
	pattern{`(\bsshpass\b[^|;&\n]*?\s-p[ \t]*)` + value, []string{"sshpass"}},
	pattern{`(\bmysql(?:dump|admin|sh)?\b[^|;&\n]*?\s-p)(?:"(?P<s>(?:[^"\\]|\\.)*)"|'(?P<s>[^']*)'|(?P<s>[^\s'"]+))`, []string{"mysql"}},
	// aws configure set aws_secret_access_key VALUE
	pattern{`(?i)(\baws[ \t]+configure[ \t]+set[ \t]+(?:[A-Za-z0-9_-]+\.)?aws_(?:secret_access_key|session_token)[ \t]+)(?P<s>[^\s'"]+)`, []string{"aws"}},

	// Token shapes recognised on their own; the prefix stays to say what
	// kind of credential it was.
	pattern{`\b(gh[pousr]_)(?P<s>[A-Za-z0-9]{20,})`, []string{"gh"}},                             // GitHub
	pattern{`\b(github_pat_)(?P<s>[A-Za-z0-9_]{20,})`, []string{"github_pat_"}},                  // GitHub fine-grained
	pattern{`\b(glpat-)(?P<s>[A-Za-z0-9_-]{20,})`, []string{"glpat-"}},                           // GitLab
	pattern{`\b(sk-ant-)(?P<s>[A-Za-z0-9_-]{20,})`, []string{"sk-ant-"}},                         // Anthropic, before OpenAI's wider shape
	pattern{`\b(sk-(?:proj-|svcacct-|admin-)?)(?P<s>[A-Za-z0-9_-]{20,})`, []string{"sk-"}},       // OpenAI and alike
	pattern{`\b((?:sk|rk)_(?:live|test)_)(?P<s>[A-Za-z0-9]{16,})`, []string{"_live_", "_test_"}}, // Stripe
	pattern{`\b(xox[abposr]-)(?P<s>[A-Za-z0-9-]{10,})`, []string{"xox"}},                         // Slack
	pattern{`\b(xapp-)(?P<s>[A-Za-z0-9-]{10,})`, []string{"xapp-"}},                              // Slack app-level
	pattern{`\b(hf_)(?P<s>[A-Za-z0-9]{30,})`, []string{"hf_"}},                                   // Hugging Face
	pattern{`\b(npm_)(?P<s>[A-Za-z0-9]{36})\b`, []string{"npm_"}},                                // npm
	pattern{`\b(AIza)(?P<s>[A-Za-z0-9_-]{35})`, []string{"aiza"}},                                // Google API key
	pattern{`\b(AKIA|ASIA)(?P<s>[A-Z0-9]{16})\b`, []string{"akia", "asia"}},                      // AWS access key id
)

// secretName matches the end of a name whose value is a secret:
// password, DB_PASSWORD, client_secret, api-key, AWS_SECRET_ACCESS_KEY, ….
const secretName = `(?:password|passwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key)`

// value is the right-hand side of an assignment: double-quoted (with
// backslash escapes), single-quoted, or a bare word that ends where the shell
// or a URL query would end it.
const value = `(?:"(?P<s>(?:[^"\\]|\\.)*)"|'(?P<s>[^']*)'|(?P<s>[^\s'"=$&;|<>()` + "`" + `][^\s'"&;|<>()` + "`" + `]*))`

// compileRules compiles patterns and finds their secret groups. A pattern
// without one is a programming error caught by every test run.
func compileRules(patterns ...pattern) ruleSet {
	rs := make(ruleSet, 0, len(patterns))
	for _, p := range patterns {
		re := regexp.MustCompile(p.expr)
		r := rule{re: re, hints: p.hints}
		for i, name := range re.SubexpNames() {
			if name == "s" {
				r.secretGroups = append(r.secretGroups, i)
			}
		}
		if len(r.secretGroups) == 0 {
			panic("redact: pattern has no secret group: " + p.expr)
		}
		rs = append(rs, r)
	}
	return rs
}
