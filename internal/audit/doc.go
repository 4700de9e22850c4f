// Package audit keeps Sidecar's local record of every decision: an
// append-only file of JSON lines in which each record carries the hash of the
// record before it, so that an edit, a deletion or a reordering shows.
//
// # Files
//
// The live file is <Dir>/audit.jsonl. When the next record would take it past
// Options.MaxSizeMB it is renamed to <Dir>/audit-<time>.jsonl, the time in
// UTC as 2006-01-02T15-04-05.000, and a new live file is started. At most
// Options.MaxBackups backups are kept; the oldest are deleted first. Every
// file is mode 0600. While a Log is open, <Dir>/audit.lock holds an exclusive
// flock so that a second daemon cannot interleave its records.
//
// # Record hashing
//
// This is the specification a verifier in any language implements.
//
// A record is one line: a JSON object, then "\n". Its members appear in the
// order of Record's fields, and "hash" is always the last. For each line:
//
//  1. Drop the "\n". The rest must end with `,"hash":"`, 64 lower-case hex
//     digits, `"}`.
//  2. Cut that suffix and append `}`. The result is the record's JSON
//     encoding without its hash member: these exact bytes are hashed.
//  3. The record's hash is the lower-case hex SHA-256 of those bytes and
//     must equal the 64 digits cut in step 1.
//
// Nothing is re-encoded: the bytes on disk are the bytes hashed, so the
// result does not depend on any JSON library's formatting choices.
//
// Seq is 1 for the first record ever written and grows by one per record over
// the log's whole life, across files. The first record's Prev is Genesis (64
// zeros); every later record's Prev is the Hash of the record whose Seq is one
// less, including across a rotation (the first record of a new file links to
// the last record of the file before).
//
// # What verification proves
//
// Verify walks the backups oldest to newest, then the live file. Rotation may
// have deleted the oldest backups, so the first record of the oldest file
// that remains is taken as given (its Seq and Prev), unless its Seq is 1,
// whose Prev must be Genesis; from there every record is checked link by
// link. A hash chain without a key cannot show that its newest records were
// cut off, or that everything after an edit was rewritten with fresh hashes;
// comparing Summary's Entries and Head with a copy kept elsewhere (the daemon
// reports both on /v1/status) does.
package audit
