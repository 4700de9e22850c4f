// Package session keeps what carries over between the commands of one
// named session: the directory the last command ended in and the exported
// variables that may safely persist. The daemon stores it in its own state
// directory, never in the workspace, so a command cannot edit the state
// that shapes the next one except through what it legitimately exports,
// and FilterExports decides what of that survives.
package session
