package daemon

import "github.com/sidecarhq/sidecar/internal/protocol"

// policySummary is the read-only view of the local policy in /v1/status.
func policySummary(c checked) protocol.PolicySummary {
	return protocol.PolicySummary{
		Mode:                  string(c.mode),
		AllowRules:            len(c.allow),
		DenyRules:             len(c.deny),
		AllowOutsideWorkspace: c.AllowOutsideWorkspace,
	}
}
