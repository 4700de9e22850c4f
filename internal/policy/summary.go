package policy

import (
	"maps"
	"slices"
	"strings"
)

// HardDenyCategories lists the hard-deny categories, for /v1/status and
// the docs; a verdict's rule is "hard-deny/" + one of them.
func HardDenyCategories() []string {
	return []string{catPrivilege, catRecursiveDelete, catDownloadShell, catAppleEvents,
		catKeychain, catNetworkShell, catHistory, catState, catSensitive, catProtectedWrite}
}

// SafeCommands lists the commands the safe list knows, sorted, the policy
// file's included. A command on it is safe only with the arguments its
// entry allows.
func (c *Classifier) SafeCommands() []string {
	return slices.Sorted(maps.Keys(c.safe))
}

// Description is the effective policy, for `sidecar policy show` and, in
// part, for /v1/status. It is a copy: changing it changes nothing.
type Description struct {
	Mode                  Mode       `json:"mode"`
	Workspace             string     `json:"workspace"`
	AllowOutsideWorkspace bool       `json:"allow_outside_workspace"`
	PolicyFile            string     `json:"policy_file,omitempty"`
	DenyRules             []RuleInfo `json:"deny_rules"`
	AllowRules            []RuleInfo `json:"allow_rules"`
	HardDeny              []string   `json:"hard_deny"`
	GuardedPaths          []PathInfo `json:"guarded_paths"`
	ProtectedWrites       []PathInfo `json:"protected_writes"`
	SafeCommands          []string   `json:"safe_commands"`
	ExtraSafeCommands     []string   `json:"extra_safe_commands"`
	Limits                LimitsInfo `json:"limits"`
}

// RuleInfo is one local rule.
type RuleInfo struct {
	Kind   string `json:"kind"` // "prefix" or "regex"
	Match  string `json:"match"`
	Source string `json:"source"` // "--allow", "policy.yaml:12"
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule"` // the rule id a verdict names
}

// PathInfo is a guarded or write-protected path.
type PathInfo struct {
	Path  string `json:"path"`
	Tree  bool   `json:"tree"` // everything inside it too
	Why   string `json:"why"`
	Found string `json:"found,omitempty"` // rule category it denies under
}

// LimitsInfo are the analysis limits of step 6.
type LimitsInfo struct {
	MaxCommandBytes   int `json:"max_command_bytes"`
	MaxSimpleCommands int `json:"max_simple_commands"`
	MaxNesting        int `json:"max_nesting"`
}

// Describe returns the effective policy.
func (c *Classifier) Describe() Description {
	d := Description{
		Mode: c.mode, Workspace: c.workspace, AllowOutsideWorkspace: c.allowOutside,
		DenyRules: []RuleInfo{}, AllowRules: []RuleInfo{},
		HardDeny: HardDenyCategories(), SafeCommands: c.SafeCommands(),
		ExtraSafeCommands: append([]string{}, c.extraSafe...),
		Limits:            LimitsInfo{MaxCommandBytes, MaxSimpleCommands, MaxNesting},
	}
	if c.file != nil {
		d.PolicyFile = c.file.Path
	}
	for _, r := range c.rules {
		info := RuleInfo{Kind: "prefix", Source: r.source, Reason: r.reason, Rule: r.id()}
		if r.re != nil {
			info.Kind, info.Match = "regex", r.re.String()
		} else {
			info.Match = strings.Join(r.prefix, " ")
		}
		if r.allow {
			d.AllowRules = append(d.AllowRules, info)
		} else {
			d.DenyRules = append(d.DenyRules, info)
		}
	}
	seen := map[string]bool{}
	for _, g := range c.guards {
		if seen[g.shown] {
			continue
		}
		seen[g.shown] = true
		why := "Sidecar's own files: any command naming a path inside is denied"
		if g.category == catSensitive {
			why = "sensitive (policy file): any command naming a path inside is denied"
		}
		d.GuardedPaths = append(d.GuardedPaths, PathInfo{Path: g.shown, Tree: true, Why: why, Found: "hard-deny/" + g.category})
	}
	for _, p := range slices.Sorted(maps.Keys(c.writeGuards)) {
		g := c.writeGuards[p]
		d.ProtectedWrites = append(d.ProtectedWrites, PathInfo{Path: p, Tree: g.dir, Why: g.what, Found: "hard-deny/" + catProtectedWrite})
	}
	d.ProtectedWrites = append(d.ProtectedWrites,
		PathInfo{Path: "*/.git/hooks", Tree: true, Why: wgGit, Found: "hard-deny/" + catProtectedWrite},
		PathInfo{Path: "*/.git/config", Why: wgGit, Found: "hard-deny/" + catProtectedWrite})
	return d
}
