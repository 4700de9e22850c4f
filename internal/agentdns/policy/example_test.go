package policy_test

import (
	"fmt"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

func ExamplePolicy_Decide() {
	var allow, deny policy.ListBuilder
	allow.Add("*.github.com", "allow:*.github.com")
	deny.Add("gist.github.com", "deny:gist.github.com")
	p := &policy.Policy{Name: "sandbox", Mode: policy.Enforce, Default: policy.Deny, HoldFirstSeen: true,
		Allow: allow.Build(), Deny: deny.Build()}
	for _, name := range []string{"api.github.com", "gist.github.com", "pastebin.com"} {
		d := p.Decide(name, policy.Unknown)
		fmt.Println(name, d.Verdict, d.Rule)
	}
	// Output:
	// api.github.com allow allow:*.github.com
	// gist.github.com deny deny:gist.github.com
	// pastebin.com hold hold_first_seen
}
