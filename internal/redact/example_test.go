package redact_test

import (
	"fmt"

	"github.com/sidecarhq/sidecar/internal/redact"
)

func ExampleCommand() {
	fmt.Println(redact.Command(`curl -H "Authorization: Bearer abc.def" https://alice:s3cret@example.com/`))
	fmt.Println(redact.Command("mysql --password hunter2 -h db"))
	fmt.Println(redact.Command("ls -la"))
	// Output:
	// curl -H "Authorization: Bearer [REDACTED]" https://alice:[REDACTED]@example.com/
	// mysql --password [REDACTED] -h db
	// ls -la
}
