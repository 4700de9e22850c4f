package policy

// Verdict is the classifier's answer for one command string.
type Verdict struct {
	Decision Decision `json:"decision"`
	// Approval is how the verdict was reached (ByPolicy, ByRule, ...); ""
	// when Decision is Ask.
	Approval string `json:"approval,omitempty"`
	// Rule is a stable id: "invalid-input", "deny-regex/<re>",
	// "hard-deny/<category>", "mode/deny", "workspace/cwd-outside",
	// "unparsable", "too-long", "too-many-commands", "too-deep",
	// "allow-regex/<re>", "safe-list", "mode/allow", "mode/read-only",
	// "mode/invalid" or "not-safe/<why>".
	Rule string `json:"rule"`
	// Reason says why, in words a person and an agent can act on.
	Reason string `json:"reason"`
	// Safe reports whether every simple command is on the safe list and
	// every redirection is harmless.
	Safe bool `json:"safe"`
	// Commands are the simple commands found, in source order.
	Commands []SimpleCommand `json:"commands"`
}

// SimpleCommand is one simple command of the program: a command with its
// arguments, or a declaration, test or arithmetic clause, or a statement of
// redirections alone.
type SimpleCommand struct {
	// Args are the words, quotes removed. A word that is not a plain literal
	// is shown as its source text and makes the command non-literal.
	Args []string `json:"args"`
	// Assigns are leading NAME=value words, as written.
	Assigns   []string   `json:"assigns,omitempty"`
	Literal   bool       `json:"literal"`
	Redirects []Redirect `json:"redirects,omitempty"`
	Safe      bool       `json:"safe"`
	Why       string     `json:"why,omitempty"` // why it is not safe
}

// Redirect is one redirection of a simple command, including those it
// inherits from an enclosing group, subshell or loop.
type Redirect struct {
	Op     string `json:"op"`     // as written, with its file descriptor: "2>", ">&", "<<"
	Target string `json:"target"` // the word, quotes removed when literal
}
