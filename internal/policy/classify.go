package policy

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Classify decides what to do with command, started in the absolute
// directory cwd ("" means the workspace), following the order documented
// on Config, and lists the simple commands it found (Verdict.Commands). It
// never runs anything; it reads the file system only through Config.FS. It
// is safe for concurrent use.
func (c *Classifier) Classify(command, cwd string) Verdict {
	return c.classify(command, cwd, true)
}

// Decide is Classify without the list of simple commands, which only
// `sidecar policy explain` shows: the same decision, approval, rule,
// reason and Safe, with Commands nil. The daemon decides every command
// with it; building the list took a sixth of the time of a long command.
func (c *Classifier) Decide(command, cwd string) Verdict {
	return c.classify(command, cwd, false)
}

func (c *Classifier) classify(command, cwd string, list bool) Verdict {
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
	// decision still follows the documented order. Its calls and words go
	// back to the pool once the verdict, which holds none of them, is made.
	mem := c.walkMemories.get()
	defer c.walkMemories.put(mem)
	a := c.analyze(command, cleanPath(cwd), mem, list)
	v := Verdict{Safe: a.safe && a.limit == nil && a.denial == nil, Commands: a.commands}
	if v.Commands == nil && list {
		v.Commands = []SimpleCommand{}
	}
	decide := func(d Decision, approval, rule, reason string) Verdict {
		v.Decision, v.Approval, v.Rule, v.Reason = d, approval, rule, reason
		return v
	}

	if r := c.rules.rawMatch(false, command); r != nil {
		return decide(Deny, ByRule, r.id(), "the local deny rule "+r.text()+" matches this command"+ruleWhy(r))
	}
	if a.denial != nil {
		return decide(Deny, a.denial.approval(), a.denial.ruleID(), a.denial.reason())
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
		if r := c.rules.rawMatch(true, command); r != nil {
			return decide(Allow, ByRule, r.id(), "the local allow rule "+r.text()+" matches this command")
		}
		if r := a.ruled; r != nil {
			return decide(Allow, ByRule, r.id(), "the local allow rule "+r.text()+
				" covers every command that is not on the safe list")
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

// ruleWhy is the rule's own words for the agent, if it has any.
func ruleWhy(r *rule) string {
	if r.reason == "" {
		return ""
	}
	return ": " + r.reason
}
