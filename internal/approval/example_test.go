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

// A Gate answers from a grant once a person has said "always" to that
// exact command in that session; with nobody to ask, it answers no.
func ExampleGate() {
	grants := approval.NewGrants(0)
	grants.Add("default", "make test")
	g := approval.NewGate(approval.GateOptions{Grants: grants})
	for _, cmd := range []string{"make test", "make test && make deploy"} {
		a := g.Ask(context.Background(), approval.Request{Session: "default", Command: cmd})
		fmt.Println(a.Approved, a.Approval)
	}
	// Output:
	// true grant
	// false no_tty
}
