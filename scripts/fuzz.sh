#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each ($1, default
# 10s). go test -fuzz takes one target per run, so we list them first.
set -euo pipefail
fuzztime="${1:-10s}"
cd "$(dirname "$0")/.."
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done
