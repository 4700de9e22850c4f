package policy

import (
	"maps"
	"slices"
)

// HardDenyCategories lists the hard-deny categories, for /v1/status and
// the docs; a verdict's rule is "hard-deny/" + one of them.
func HardDenyCategories() []string {
	return []string{catPrivilege, catRecursiveDelete, catDownloadShell, catAppleEvents,
		catKeychain, catNetworkShell, catHistory, catState}
}

// SafeCommands lists the commands the safe list knows, sorted. A command
// on it is safe only with the arguments its entry allows.
func (c *Classifier) SafeCommands() []string {
	return slices.Sorted(maps.Keys(c.safe))
}
