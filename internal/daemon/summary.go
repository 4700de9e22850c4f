package daemon

import (
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/protocol"
)

// policySummary is the read-only view of the local policy in /v1/status.
func policySummary(classifier *policy.Classifier) protocol.PolicySummary {
	d := classifier.Describe()
	sensitive := 0
	for _, g := range d.GuardedPaths {
		if g.Found == "hard-deny/sensitive-path" {
			sensitive++
		}
	}
	return protocol.PolicySummary{
		Mode:                  string(d.Mode),
		HardDeny:              d.HardDeny,
		SafeCommands:          d.SafeCommands,
		AllowRules:            len(d.AllowRules),
		DenyRules:             len(d.DenyRules),
		AllowOutsideWorkspace: d.AllowOutsideWorkspace,
		PolicyFile:            d.PolicyFile,
		ExtraSafeCommands:     d.ExtraSafeCommands,
		SensitivePaths:        sensitive,
	}
}
