package daemon

import (
	"github.com/sidecarhq/sidecar/internal/policy"
	"github.com/sidecarhq/sidecar/internal/protocol"
)

// policySummary is the read-only view of the local policy in /v1/status.
func policySummary(c checked, classifier *policy.Classifier) protocol.PolicySummary {
	return protocol.PolicySummary{
		Mode:                  string(c.mode),
		HardDeny:              policy.HardDenyCategories(),
		SafeCommands:          classifier.SafeCommands(),
		AllowRules:            len(c.allow),
		DenyRules:             len(c.deny),
		AllowOutsideWorkspace: c.AllowOutsideWorkspace,
	}
}
