package approval_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sidecarhq/sidecar/internal/approval"
)

func ExampleEscape() {
	fmt.Println(approval.Escape("echo hi\x1b[2J; ls \u202etxt.exe\nrm -rf ~"))
	fmt.Println(approval.Escape("grep café 日本"))
	// Output:
	// echo hi\x1b[2J; ls <U+202E>txt.exe\nrm -rf ~
	// grep café 日本
}

// A daemon started without a terminal cannot ask anyone, so every Ask is a
// denial.
func ExamplePrompter_Ask() {
	p := approval.New(approval.Options{
		OpenTTY: func() (approval.TTY, error) { return nil, errors.New("no controlling terminal") },
	})
	a := p.Ask(context.Background(), approval.Request{ID: "r1", Command: "rm -rf build"})
	fmt.Println(a.Approved, a.Approval)
	fmt.Println(a.Reason)
	// Output:
	// false no_tty
	// no terminal to ask on (/dev/tty unavailable)
}
