package redact

import "testing"

// BenchmarkCommand measures what redaction adds to each audit record: most
// commands carry no secret, and must pay almost nothing for the check.
func BenchmarkCommand(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"bare", "true"},
		{"typical", "sed -n '1,200p' '/home/user/project/src/main.go' | head -c 100000"},
		{"with-secret", "curl -H 'Authorization: Bearer abcdefghijklmnop0123' https://alice:hunter2@example.com/x"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Command(bc.cmd)
			}
		})
	}
}
