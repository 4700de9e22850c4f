// Package policy decides what Agent DNS does with one query name under one
// named policy: allow it, hold it until a person approves it, or deny it.
//
// It is pure: names and standings in, a Decision out; no I/O, no clock and
// no DNS library types, so every rule is a row in a table test. The
// evaluation order is documented on Policy.Decide.
package policy
