package approver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv makes the test binary a helper process: it dials the socket
// named in the variable and prints the first message it gets as JSON.
const helperEnv = "SIDECAR_APPROVER_TEST_DIAL"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		os.Exit(dialAndReport(path))
	}
	goleak.VerifyTestMain(m)
}

func dialAndReport(path string) int {
	c, err := Dial(context.Background(), path)
	if err != nil {
		fmt.Println(`{"type":"dial-error","message":` + quote(err.Error()) + `}`)
		return 0
	}
	defer c.Close()
	_ = json.NewEncoder(os.Stdout).Encode(c.Hello) // the test reads it
	return 0
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
