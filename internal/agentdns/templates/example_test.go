package templates_test

import (
	"fmt"

	"github.com/sidecarhq/sidecar/internal/agentdns/templates"
)

func ExampleCatalog_Resolve() {
	cat, err := templates.Load()
	if err != nil {
		panic(err)
	}
	t, err := cat.Resolve("anthropic@1")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Rule(), t.Names)
	// Output: template:anthropic@1 [api.anthropic.com]
}
