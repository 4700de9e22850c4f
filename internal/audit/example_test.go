package audit_test

import (
	"fmt"
	"log"
	"os"

	"github.com/sidecarhq/sidecar/internal/audit"
)

func Example() {
	dir, err := os.MkdirTemp("", "audit-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	l, err := audit.Open(audit.Options{Dir: dir, Sync: true})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := l.Append(audit.Record{
		Event:    audit.EventDecision,
		Session:  "default",
		Command:  "curl -H 'Authorization: Bearer abc123' https://example.com/",
		Cwd:      "/work",
		Decision: audit.DecisionAllow,
		Approval: "user",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Seq, rec.Prev == audit.Genesis, rec.Command)
	if err := l.Close(); err != nil {
		log.Fatal(err)
	}

	rep, err := audit.Verify(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Records, rep.Head == rec.Hash)
	// Output:
	// 1 true curl -H 'Authorization: Bearer [REDACTED]' https://example.com/
	// 1 true
}
