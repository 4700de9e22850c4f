// Package policy classifies one shell command string for Sidecar's consent
// gate: allow, ask or deny, with a stable rule id and a reason that a person
// and an agent can act on.
//
// The classifier is pure but for reading the file system. It parses the
// command with mvdan.cc/sh/v3/syntax in its bash dialect and walks every
// simple command the program holds: in pipelines, lists, subshells, groups,
// function bodies, loops, command and process substitutions,
// here-documents, declarations and test clauses. It looks at every
// redirection too. It never runs anything and never expands a
// substitution: a word it cannot read as a plain literal is reported in
// its source form and makes its command not safe. The file system is read
// only through Config.FS, to follow symlinks and to list a directory a
// glob reads, with a fresh cache for every call.
//
// The local policy file (policy.yaml) is parsed by ParseFile and LoadFile:
// extra deny and allow rules (argv prefixes or regexes), extra safe
// commands and sensitive paths. Every error names its line.
//
// A Classifier is immutable after New and safe for concurrent use.
package policy
