package redact

import "regexp"

// rule is one compiled pattern. The text of every group named "s" that takes
// part in a match is a secret; the rest of the match is context and stays.
type rule struct {
	re           *regexp.Regexp
	secretGroups []int // indexes of the groups named "s"
}

// ruleSet is applied in order; contexts that name a secret (headers,
// assignments, flags, URLs, key blocks) come before bare token shapes so that
// the whole value, not just a recognised token inside it, is hidden.
type ruleSet []rule

// rules is compiled once and only read afterwards.
var rules = compileRules(
	// PEM private key blocks, newlines real or written as \n.
	`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?P<s>(?s:.*?))(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)`,
	// A block whose END marker is missing: hide the key material that
	// follows, but not an ordinary argument after a quoted marker (grep).
	`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?P<s>[A-Za-z0-9+/=\s\\:,-]{16,})`,

	// HTTP Authorization header, with or without a scheme word.
	`(?i)(authorization[ \t]*:[ \t]*(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?)(?P<s>[^\s'"]+)`,
	// A bearer token outside an Authorization header.
	`(?i)\b(bearer[ \t]+)(?P<s>[A-Za-z0-9._~+/-]{8,}=*)`,

	// Credentials in a URL: scheme://user:password@host. The password runs
	// to the last @ before the path, so an unescaped @ in it is hidden too.
	`([A-Za-z][A-Za-z0-9+.-]*://[^/?#\s:@'"]*:)(?P<s>[^/?#\s'"]+)@`,

	// JSON members: "password": "…", and the same with escaped quotes as
	// they appear inside a double-quoted shell word.
	`(?i)("[A-Za-z0-9_.-]*`+secretName+`"[ \t]*:[ \t]*")(?P<s>(?:[^"\\]|\\.)*)(")`,
	`(?i)(\\"[A-Za-z0-9_.-]*`+secretName+`\\"[ \t]*:[ \t]*\\")(?P<s>(?:[^"\\]|\\[^"])*)(\\")`,

	// Assignments and --flag=value: password=…, GITHUB_TOKEN=…,
	// --api-key=…, ?token=…&. A value that is a $variable is not a secret
	// and stays visible.
	`(?i)([A-Za-z0-9_.-]*`+secretName+`[ \t]*=[ \t]*)`+value,
	// --password value, --token 'value'. A next word that starts with a
	// dash is another flag (mysql --password -h db).
	`(?i)(--[A-Za-z0-9_.-]*`+secretName+`[ \t]+)(?:"(?P<s>(?:[^"\\]|\\.)*)"|'(?P<s>[^']*)'|(?P<s>[^\s'"$&;|<>()`+"`"+`-][^\s'"&;|<>()`+"`"+`]*))`,
	// Header and YAML style: X-Auth-Token: …, PRIVATE-TOKEN: …,
	// secret: …. The value stops at @ so that a URL's user:password@host
	// keeps its host.
	`(?i)([A-Za-z0-9_.-]*`+secretName+`[ \t]*:[ \t]*)(?P<s>[^\s'"$@/:][^\s'"@]*)`,
	// Tools that take a password as a short option: curl -u user:pass,
	// sshpass -p pass, mysql -ppass. The tool must come first in the same
	// pipeline stage, so that docker -u 1000:1000 stays as it is.
	`(\bcurl\b[^|;&\n]*?\s(?:-u|--user)(?:[ \t]+|=)?)(?:'[^':]*:(?P<s>[^']*)'|"[^":]*:(?P<s>(?:[^"\\]|\\.)*)"|[^\s:'"]*:(?P<s>[^\s'"]+))`,
	`(\bsshpass\b[^|;&\n]*?\s-p[ \t]*)`+value,
	`(\bmysql(?:dump|admin|sh)?\b[^|;&\n]*?\s-p)(?:"(?P<s>(?:[^"\\]|\\.)*)"|'(?P<s>[^']*)'|(?P<s>[^\s'"]+))`,
	// aws configure set aws_secret_access_key VALUE
	`(?i)(\baws[ \t]+configure[ \t]+set[ \t]+(?:[A-Za-z0-9_-]+\.)?aws_(?:secret_access_key|session_token)[ \t]+)(?P<s>[^\s'"]+)`,

	// Token shapes recognised on their own; the prefix stays to say what
	// kind of credential it was.
	`\b(gh[pousr]_)(?P<s>[A-Za-z0-9]{20,})`,                      // GitHub
	`\b(github_pat_)(?P<s>[A-Za-z0-9_]{20,})`,                    // GitHub fine-grained
	`\b(glpat-)(?P<s>[A-Za-z0-9_-]{20,})`,                        // GitLab
	`\b(sk-ant-)(?P<s>[A-Za-z0-9_-]{20,})`,                       // Anthropic, before OpenAI's wider shape
	`\b(sk-(?:proj-|svcacct-|admin-)?)(?P<s>[A-Za-z0-9_-]{20,})`, // OpenAI and alike
	`\b((?:sk|rk)_(?:live|test)_)(?P<s>[A-Za-z0-9]{16,})`,        // Stripe
	`\b(xox[abposr]-)(?P<s>[A-Za-z0-9-]{10,})`,                   // Slack
	`\b(xapp-)(?P<s>[A-Za-z0-9-]{10,})`,                          // Slack app-level
	`\b(hf_)(?P<s>[A-Za-z0-9]{30,})`,                             // Hugging Face
	`\b(npm_)(?P<s>[A-Za-z0-9]{36})\b`,                           // npm
	`\b(AIza)(?P<s>[A-Za-z0-9_-]{35})`,                           // Google API key
	`\b(AKIA|ASIA)(?P<s>[A-Z0-9]{16})\b`,                         // AWS access key id
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
func compileRules(patterns ...string) ruleSet {
	rs := make(ruleSet, 0, len(patterns))
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		r := rule{re: re}
		for i, name := range re.SubexpNames() {
			if name == "s" {
				r.secretGroups = append(r.secretGroups, i)
			}
		}
		if len(r.secretGroups) == 0 {
			panic("redact: pattern has no secret group: " + p)
		}
		rs = append(rs, r)
	}
	return rs
}
