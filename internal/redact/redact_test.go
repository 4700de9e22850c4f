package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fake builds an obviously fake but well-formed token: prefix followed by n
// characters from a fixed alphabet. Tokens are assembled at run time so that
// secret scanners reading this file have nothing to flag.
func fake(prefix string, n int) string {
	const alphabet = "FAKE0123456789abcdefEXAMPLEghijklmnop"
	var b strings.Builder
	b.WriteString(prefix)
	for i := range n {
		b.WriteByte(alphabet[i%len(alphabet)])
	}
	return b.String()
}

func TestCommandRedacts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Token shapes.
		{"aws access key id", "aws_access_key_id=" + fake("AKIA", 0) + "IOSFODNN7EXAMPLE aws s3 ls", "aws_access_key_id=AKIA[REDACTED] aws s3 ls"},
		{"aws temporary key id", "echo ASIAIOSFODNN7EXAMPLE", "echo ASIA[REDACTED]"},
		{"github classic", "git clone https://" + fake("ghp_", 36) + "@github.com/o/r", "git clone https://ghp_[REDACTED]@github.com/o/r"},
		{"github oauth", "echo " + fake("gho_", 36), "echo gho_[REDACTED]"},
		{"github user-to-server", "echo " + fake("ghu_", 36), "echo ghu_[REDACTED]"},
		{"github server-to-server", "echo " + fake("ghs_", 36), "echo ghs_[REDACTED]"},
		{"github refresh", "echo " + fake("ghr_", 36), "echo ghr_[REDACTED]"},
		{"github fine-grained", "gh api -H 'X: " + fake("github_pat_", 82) + "' /user", "gh api -H 'X: github_pat_[REDACTED]' /user"},
		{"gitlab", "glab auth login --stdin <<< " + fake("glpat-", 20), "glab auth login --stdin <<< glpat-[REDACTED]"},
		{"openai", "python run.py " + fake("sk-", 48), "python run.py sk-[REDACTED]"},
		{"openai project", "python run.py " + fake("sk-proj-", 64), "python run.py sk-proj-[REDACTED]"},
		{"anthropic", "claude --key-from-arg " + fake("sk-ant-api03-", 80), "claude --key-from-arg sk-ant-[REDACTED]"},
		{"slack bot", "echo " + fake("xox"+"b-", 40), "echo xoxb-[REDACTED]"},
		{"slack user", "echo " + fake("xox"+"p-", 40), "echo xoxp-[REDACTED]"},
		{"slack app", "echo " + fake("xa"+"pp-", 40), "echo xapp-[REDACTED]"},
		{"stripe", "echo " + fake("sk_"+"live_", 24), "echo sk_live_[REDACTED]"},
		{"hugging face", "echo " + fake("hf_", 34), "echo hf_[REDACTED]"},
		{"npm", "echo " + fake("npm_", 36), "echo npm_[REDACTED]"},
		{"google api key", "curl 'https://x.googleapis.com/v1?q=1' -d k=" + fake("AIza", 35), "curl 'https://x.googleapis.com/v1?q=1' -d k=AIza[REDACTED]"},

		// Private keys.
		{
			"openssh private key block",
			"cat > id <<'EOF'\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nFAKEFAKEFAKE==\n-----END OPENSSH PRIVATE KEY-----\nEOF\nchmod 600 id",
			"cat > id <<'EOF'\n-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----\nEOF\nchmod 600 id",
		},
		{
			"rsa key with escaped newlines",
			`printf '%s' "-----BEGIN RSA PRIVATE KEY-----\nMIIEowFAKE\n-----END RSA PRIVATE KEY-----" > k`,
			`printf '%s' "-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----" > k`,
		},
		{
			"two key blocks",
			"-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----\nBBBB\n-----END PRIVATE KEY-----",
			"-----BEGIN EC PRIVATE KEY-----[REDACTED]-----END EC PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----",
		},
		{
			"pgp key block",
			"gpg --import <<'K'\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBFAKE\n-----END PGP PRIVATE KEY BLOCK-----\nK",
			"gpg --import <<'K'\n-----BEGIN PGP PRIVATE KEY BLOCK-----[REDACTED]-----END PGP PRIVATE KEY BLOCK-----\nK",
		},
		{
			"key block without end marker",
			"echo '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nFAKEFAKE' > id",
			"echo '-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]' > id",
		},

		// Authorization headers.
		{"bearer header", `curl -H "Authorization: Bearer abc.def-ghi_jkl" https://api.example.com`, `curl -H "Authorization: Bearer [REDACTED]" https://api.example.com`},
		{"basic header", `curl -H 'authorization: basic dXNlcjpwYXNz' https://x`, `curl -H 'authorization: basic [REDACTED]' https://x`},
		{"token scheme", `curl -H "Authorization: token ` + fake("ghp_", 36) + `" https://api.github.com`, `curl -H "Authorization: token [REDACTED]" https://api.github.com`},
		{"header without scheme", `curl -H 'Authorization:opaque123' x`, `curl -H 'Authorization:[REDACTED]' x`},
		{"bare bearer", `http GET x "Bearer eyJhbGciOiJIUzI1NiJ9.e30.FAKE"`, `http GET x "Bearer [REDACTED]"`},
		{"auth token header", `curl -H 'X-Auth-Token: s3cr3tvalue' x`, `curl -H 'X-Auth-Token: [REDACTED]' x`},
		{"gitlab header", `curl --header "PRIVATE-TOKEN: ` + fake("glpat-", 20) + `" x`, `curl --header "PRIVATE-TOKEN: [REDACTED]" x`},
		{"api key header", `curl -H 'x-api-key: abc123' x`, `curl -H 'x-api-key: [REDACTED]' x`},

		// Assignments.
		{"password assignment", "mysql -e 'select 1' password=hunter2 -h db", "mysql -e 'select 1' password=[REDACTED] -h db"},
		{"upper case", "PASSWORD=hunter2 ./run", "PASSWORD=[REDACTED] ./run"},
		{"passwd", "chpasswd <<< passwd=hunter2", "chpasswd <<< passwd=[REDACTED]"},
		{"token", "curl 'https://x/api?token=abc123&page=2'", "curl 'https://x/api?token=[REDACTED]&page=2'"},
		{"secret", "SECRET=abc ./run", "SECRET=[REDACTED] ./run"},
		{"api_key", "./tool api_key=abc123", "./tool api_key=[REDACTED]"},
		{"apikey", "./tool ApiKey=abc123", "./tool ApiKey=[REDACTED]"},
		{"prefixed env var", "GITHUB_TOKEN=" + fake("ghp_", 36) + " gh pr list", "GITHUB_TOKEN=[REDACTED] gh pr list"},
		{"client secret", "export CLIENT_SECRET='a b c'", "export CLIENT_SECRET='[REDACTED]'"},
		{"double quoted with escape", `DB_PASSWORD="a\"b c" ./migrate`, `DB_PASSWORD="[REDACTED]" ./migrate`},
		{"spaces around equals", "token = abc", "token = [REDACTED]"},
		{"aws secret lower", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "aws_secret_access_key=[REDACTED] aws s3 ls"},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY terraform apply", "AWS_SECRET_ACCESS_KEY=[REDACTED] terraform apply"},
		{"aws configure set", "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG", "aws configure set aws_secret_access_key [REDACTED]"},
		{"connection string", `sqlcmd "Server=db;User Id=sa;Password=p@ss;"`, `sqlcmd "Server=db;User Id=sa;Password=[REDACTED];"`},
		{"nested literal", "kubectl create secret generic x --from-literal=password=abc", "kubectl create secret generic x --from-literal=password=[REDACTED]"},
		{"json body", `curl -d '{"user":"alice","password":"hunter2"}' x`, `curl -d '{"user":"alice","password":"[REDACTED]"}' x`},
		{"json body escaped", `curl -d "{\"api_key\": \"abc\"}" x`, `curl -d "{\"api_key\": \"[REDACTED]\"}" x`},
		{"several on one line", "a password=x b token=y", "a password=[REDACTED] b token=[REDACTED]"},

		// Flags.
		{"password flag space", "mysql --password hunter2 -h db", "mysql --password [REDACTED] -h db"},
		{"password flag equals", "mysql --password=hunter2 -h db", "mysql --password=[REDACTED] -h db"},
		{"token flag", "vault login --token abc.def", "vault login --token [REDACTED]"},
		{"api key flag", "tool --api-key=abc123 run", "tool --api-key=[REDACTED] run"},
		{"api key flag space quoted", `tool --api-key "abc 123" run`, `tool --api-key "[REDACTED]" run`},
		{"flag case insensitive", "tool --Password Hunter2", "tool --Password [REDACTED]"},

		// Short options of well-known tools.
		{"curl user", "curl -u alice:s3cret https://x", "curl -u alice:[REDACTED] https://x"},
		{"curl user quoted", "curl -s --user 'alice:s3 cret' https://x", "curl -s --user 'alice:[REDACTED]' https://x"},
		{"curl user attached", "curl -ualice:s3cret https://x", "curl -ualice:[REDACTED] https://x"},
		{"sshpass", "sshpass -p 'hunter 2' ssh alice@host", "sshpass -p '[REDACTED]' ssh alice@host"},
		{"sshpass unquoted", "sshpass -p hunter2 ssh alice@host", "sshpass -p [REDACTED] ssh alice@host"},
		{"mysql attached", "mysql -u root -phunter2 -e 'select 1'", "mysql -u root -p[REDACTED] -e 'select 1'"},
		{"mysqldump quoted", `mysqldump -u root -p"hunter 2" db > d.sql`, `mysqldump -u root -p"[REDACTED]" db > d.sql`},

		// URLs.
		{"url password", "git clone https://alice:s3cret@host/repo.git", "git clone https://alice:[REDACTED]@host/repo.git"},
		{"url password with at", "curl https://alice:p@ss@host/x", "curl https://alice:[REDACTED]@host/x"},
		{"redis without user", "redis-cli -u redis://:pw@localhost:6379/0", "redis-cli -u redis://:[REDACTED]@localhost:6379/0"},
		{"postgres", `psql "postgresql://app:pa55word@db:5432/app?sslmode=require"`, `psql "postgresql://app:[REDACTED]@db:5432/app?sslmode=require"`},
		{"user named token", "git clone https://token:abc123@host/r", "git clone https://token:[REDACTED]@host/r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Command(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Command(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if again := Command(got); again != got {
				t.Errorf("not idempotent: Command(%q) = %q", got, again)
			}
		})
	}
}

func TestCommandLeavesOrdinaryCommands(t *testing.T) {
	for _, in := range []string{
		"",
		"ls -la /tmp",
		`git commit -m "fix token refresh"`,
		"git push -u origin main",
		`docker run --rm -u 1000:1000 -v "$PWD:/src" alpine sh -c 'echo hi'`,
		"curl -fsSL https://example.com/install.sh | sh",
		"ssh alice@host uptime",
		"git clone git@github.com:org/repo.git",
		"git clone https://github.com/org/repo.git",
		`grep -rn "password" src/`,
		`grep -rn "api_key" .`,
		"export PATH=$HOME/bin:$PATH",
		"echo $GITHUB_TOKEN | gh auth login --with-token",
		`psql "$DATABASE_URL"`,
		"PASSWORD=$DB_PASSWORD ./migrate",
		"mysql --password -h db",
		"mysql --token $TOKEN",
		"kubectl get secrets -n prod",
		"aws s3 ls s3://bucket/key",
		"python3 -c 'import os; print(os.environ[\"HOME\"])'",
		"llm --max-tokens=512 --tokenizer=bpe",
		"ps aux | grep sk-",
		"task-runner --risk-assessment-document-for-q3",
		"cat ~/.ssh/id_ed25519.pub",
		"grep -- '-----BEGIN OPENSSH PRIVATE KEY-----' ~/.ssh/id_ed25519",
		`echo "Authorization header missing"`,
		`curl -H "Accept: application/json" 'https://api.example.com/v1/items?page=2&limit=10'`,
		"docker login -u alice --password-stdin ghcr.io",
		"npm config get //registry.npmjs.org/:_authToken",
		`[ "$token" == "" ] && echo empty`,
		"if [ $x == y ]; then echo token; fi",
		"echo 'héllo wörld' > ファイル.txt",
		"go test -run TestToken ./...",
		"mysql -u root -p -h db",
		"mysql -P 3306 -h db --protocol=tcp",
		"ls | curl -T - https://x; docker run -u 0:0 alpine",
		"sshpass -f ~/.pw ssh host",
	} {
		t.Run(in, func(t *testing.T) {
			if got := Command(in); got != in {
				t.Errorf("Command changed an ordinary command (-want +got):\n%s", cmp.Diff(in, got))
			}
		})
	}
}
