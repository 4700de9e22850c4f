#!/usr/bin/env bash
# Runs every fuzz target in the module for a short time each ($1, default
# 10s). go test -fuzz takes one target per run, so we list them first.
#
# A failing input is always written to the package's testdata/fuzz/<target>
# and fails the run. Go's fuzzing coordinator can also fail a target with a
# bare "context deadline exceeded" when -fuzztime ends while a worker on a
# busy machine is still mid-call, having found nothing (a race in
# internal/fuzz; it hit FuzzCommand once here). Such a failure, with no
# input written, is retried once; a second one fails the run.
set -euo pipefail
fuzztime="${1:-10s}"
cd "$(dirname "$0")/.."

# corpus_count prints how many files the target's corpus directory holds.
corpus_count() {
	local dir="$1/testdata/fuzz/$2"
	if [[ -d $dir ]]; then find "$dir" -type f | wc -l; else echo 0; fi
}

for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		for attempt in 1 2; do
			echo "fuzz $pkg $target ($fuzztime)"
			before=$(corpus_count "$dir" "$target")
			if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"; then
				break
			fi
			if [[ $(corpus_count "$dir" "$target") != "$before" || $attempt == 2 ]]; then
				echo "fuzz: $target failed; a failing input, if one was found, is in $dir/testdata/fuzz/$target" >&2
				exit 1
			fi
			echo "fuzz: $target failed without writing an input (the coordinator's deadline race); once more" >&2
		done
	done
done
