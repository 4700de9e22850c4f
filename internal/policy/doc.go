// Package policy classifies one shell command string for Sidecar's consent
// gate: allow, ask or deny, with a stable rule id and a reason that a person
// and an agent can act on.
//
// The classifier is pure. It parses the command with mvdan.cc/sh/v3/syntax in
// its bash dialect and walks every simple command the program holds: in
// pipelines, lists, subshells, groups, function bodies, loops, command and
// process substitutions, here-documents, declarations and test clauses. It
// looks at every redirection too. It never runs anything and never expands a
// substitution: a word it cannot read as a plain literal is reported in its
// source form and makes its command not safe. The only file-system access is
// through Config.ResolvePath, which the caller injects.
//
// A Classifier is immutable after New and safe for concurrent use.
package policy
