package policy

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Classify decides what to do with command, started in the absolute
// directory cwd ("" means the workspace), following the order documented
// on Config. It never runs anything; it reads the file system only through
// Config.ResolvePath. It is safe for concurrent use.
func (c *Classifier) Classify(command, cwd string) Verdict {
	if cwd == "" {
		cwd = c.workspace
	}
	switch {
	case strings.TrimSpace(command) == "":
		return Verdict{Decision: Deny, Approval: ByPolicy, Rule: "invalid-input", Reason: "the command is empty"}
	case strings.ContainsRune(command, 0):
		return Verdict{Decision: Deny, Approval: ByPolicy, Rule: "invalid-input", Reason: "the command holds a NUL byte"}
	case !utf8.ValidString(command):
		return Verdict{Decision: Deny, Approval: ByPolicy, Rule: "invalid-input", Reason: "the command is not valid UTF-8"}
	case !filepath.IsAbs(cwd) || strings.ContainsRune(cwd, 0):
		return Verdict{Decision: Deny, Approval: ByPolicy, Rule: "invalid-input", Reason: "the working directory is not an absolute path"}
	}

	// The analysis runs first so that every verdict lists the commands; the
	// decision still follows the documented order.
	a := c.analyze(command, filepath.Clean(cwd))
	v := Verdict{Safe: a.safe && a.limit == nil && a.denial == nil, Commands: a.commands}
	if v.Commands == nil {
		v.Commands = []SimpleCommand{}
	}
	decide := func(d Decision, approval, rule, reason string) Verdict {
		v.Decision, v.Approval, v.Rule, v.Reason = d, approval, rule, reason
		return v
	}

	for _, re := range c.deny {
		if re.MatchString(command) {
			return decide(Deny, ByRule, "deny-regex/"+re.String(), "the local deny rule "+re.String()+" matches this command")
		}
	}
	if a.denial != nil {
		return decide(Deny, ByHardDeny, a.denial.rule(), a.denial.reason())
	}
	switch c.mode {
	case ModeDeny:
		return decide(Deny, ByMode, "mode/deny", "Sidecar is in deny mode: no command runs")
	case ModeAsk, ModeAllow, ModeReadOnly:
	default:
		return decide(Deny, ByMode, "mode/invalid", "the approval mode "+string(c.mode)+" is not valid, so nothing runs")
	}
	if !a.cwdInside && !c.allowOutside {
		return decide(Deny, ByWorkspace, "workspace/cwd-outside",
			"the working directory "+a.realCwd+" is outside the workspace "+c.workspace)
	}
	if a.limit != nil {
		if c.mode == ModeReadOnly {
			return decide(Deny, ByMode, a.limit.rule, a.limit.detail+"; read-only mode runs only what it can check")
		}
		return decide(Ask, "", a.limit.rule, a.limit.detail+"; a person has to approve it")
	}
	if c.mode != ModeReadOnly {
		for _, re := range c.allow {
			if re.MatchString(command) {
				return decide(Allow, ByRule, "allow-regex/"+re.String(), "the local allow rule "+re.String()+" matches this command")
			}
		}
	}
	if v.Safe {
		return decide(Allow, ByPolicy, "safe-list", "every command only reads the workspace or prints")
	}
	why := "not-safe/unknown"
	detail := "the command is not on the safe list"
	if a.unsafe != nil {
		why, detail = "not-safe/"+a.unsafe.id, a.unsafe.detail
	}
	switch c.mode {
	case ModeAllow:
		return decide(Allow, ByPolicy, "mode/allow", "allow mode runs commands the safe list does not cover ("+detail+")")
	case ModeReadOnly:
		return decide(Deny, ByMode, "mode/read-only", "read-only mode runs only the safe list: "+detail)
	}
	return decide(Ask, "", why, detail+"; a person has to approve it")
}
