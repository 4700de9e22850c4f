//go:build linux

package host_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
	"github.com/sidecarhq/sidecar/internal/runtime/host"
)

func Example() {
	rt, err := host.New(host.Options{})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	res, err := rt.Run(context.Background(), runtime.Request{
		ID:        "example",
		Command:   `export GREETING='hello'; echo "$GREETING"; exit 3`,
		Cwd:       dir,
		Env:       []string{"PATH=/usr/bin:/bin"},
		Timeout:   10 * time.Second,
		MaxOutput: 1 << 20,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exit %d, output %q, GREETING=%q, cwd kept: %v\n",
		res.ExitCode, res.Output, res.Exports["GREETING"], res.Cwd != "")
	// Output: exit 3, output "hello\n", GREETING="hello", cwd kept: true
}

// With warm shells, a request usually finds a bash already started with
// its environment; the result is the same either way. The Runtime must be
// closed, which also ends the idle shells.
func Example_warmShells() {
	rt, err := host.New(host.Options{WarmShells: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	for i := range 3 {
		res, err := rt.Run(context.Background(), runtime.Request{
			ID:        fmt.Sprint("example-", i),
			Command:   fmt.Sprintf("echo run %d", i),
			Cwd:       dir,
			Env:       []string{"PATH=/usr/bin:/bin"},
			Timeout:   10 * time.Second,
			MaxOutput: 1 << 20,
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s", res.Output)
	}
	// Output:
	// run 0
	// run 1
	// run 2
}
