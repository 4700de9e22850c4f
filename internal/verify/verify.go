// Package verify checks a daemon's security properties from the outside,
// as a client would see them, and reports PASS or FAIL for each.
package verify

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sidecarhq/sidecar/internal/client"
)

// Target is the daemon under check.
type Target struct {
	URL   string
	Token string
	// Workspace is the daemon's workspace, when known (ephemeral daemons).
	Workspace string
	// StateDir is set for a local ephemeral daemon: the audit chain is then
	// verified from the files themselves, not only from /v1/audit.
	StateDir string
	// Remote limits the run to checks that change nothing and need no
	// prompt, for a daemon that a person may be watching.
	Remote bool
}

// check is one named property.
type check struct {
	name   string
	remote bool // safe to run against a daemon in use
	run    func(ctx context.Context, t *env) error
}

// env is what each check gets.
type env struct {
	Target
	c   *client.Client
	bad *client.Client // same URL, wrong token
	raw *client.Client // same URL, no token
}

// Result is one check's outcome.
type Result struct {
	Name string
	Err  error
}

// Run runs the checks against t and prints one PASS/FAIL line each. It
// returns the results; any FAIL means the caller exits non-zero.
func Run(ctx context.Context, t Target, w io.Writer) ([]Result, error) {
	c, err := client.New(t.URL, t.Token)
	if err != nil {
		return nil, err
	}
	bad, _ := client.New(t.URL, "0000000000000000000000000000000000000000000000000000000000000000")
	raw, _ := client.New(t.URL, "")
	e := &env{Target: t, c: c, bad: bad, raw: raw}
	var results []Result
	for _, ch := range checks() {
		if t.Remote && !ch.remote {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := ch.run(cctx, e)
		cancel()
		results = append(results, Result{Name: ch.name, Err: err})
		if err != nil {
			fmt.Fprintf(w, "FAIL  %s: %v\n", ch.name, err)
		} else {
			fmt.Fprintf(w, "PASS  %s\n", ch.name)
		}
	}
	return results, nil
}

// Failed counts failed results.
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Err != nil {
			n++
		}
	}
	return n
}
