// Package agentdns is Agent DNS: the network half of Sidecar's consent
// gate. It is a DNS resolver whose named policies decide, per client, which
// names resolve, which are held until a person approves them and which are
// denied; it keeps an inventory of every name each policy has seen and
// writes an event for every decision.
//
// A query travels one chain of stages, built once when the Server is made
// (New), each with the same contract (Stage): answer, or hand on to the
// next. The order is
//
//	log → sanity → policy → cache → forward
//
// log times the query and writes its event; sanity answers what is not a
// plain query; policy decides, answers held and denied names itself with
// the block address and an Extended DNS Error (RFC 8914), and records the
// outcome in the inventory; cache answers from earlier answers; forward
// asks the upstream resolvers (UDP, TCP on truncation, or DNS over TLS).
// Because policy sits before cache and forward, a held or denied name never
// leaves the machine.
//
// The DNS wire format comes from github.com/miekg/dns and stays inside this
// package: the policy, inventory, events and config packages below it see
// only names, types and addresses.
package agentdns
