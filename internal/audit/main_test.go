package audit

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// lumberjack starts one goroutine per Logger to prune old backups and
	// never stops it, even on Close; nothing else may outlive a test.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("gopkg.in/natefinch/lumberjack%2ev2.(*Logger).millRun"))
}
