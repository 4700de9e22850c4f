#!/usr/bin/env bash
# run.sh: what `make bench` runs. Builds sidecar, starts the ssh baseline, runs
# execbench (exec round trip against the floor and ssh, plus the resource check), the
# policy classification benchmark on one core and the Go micro-benchmarks under
# internal/, and prints everything as markdown.
#
#   bench/run.sh [execbench flags...]      e.g. bench/run.sh -n 500 -leak-n 2000
#
# Needs root for the ssh baseline (a throwaway user and sshd); BENCH_SSH=0 skips it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tmp="$(mktemp -d)"
ssh_dir="" # its own temp dir: the bench user must reach it, and $tmp is 0700

cleanup() {
	local rc=$?
	if [[ -n "$ssh_dir" ]]; then
		bench/ssh-baseline.sh down "$ssh_dir" || rc=1
	fi
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { echo "==> $*" >&2; }

step "build sidecar and execbench into $tmp"
go build -o "$tmp/sidecar" ./cmd/sidecar
go build -o "$tmp/execbench" ./bench/execbench

ssh_flags=()
if [[ "${BENCH_SSH:-1}" != 0 ]]; then
	step "start the ssh baseline"
	ssh_dir="$(mktemp -d /tmp/sidecar-bench-ssh.XXXXXX)"
	bench/ssh-baseline.sh up "$ssh_dir" >"$tmp/ssh.env"
	# shellcheck source=/dev/null
	. "$tmp/ssh.env"
	ssh_flags=(-ssh-port "$SSH_BENCH_PORT" -ssh-user "$SSH_BENCH_USER"
		-ssh-key "$SSH_BENCH_KEY" -ssh-control "$SSH_BENCH_CONTROL")
else
	step "ssh baseline skipped (BENCH_SSH=0)"
fi

echo "# Sidecar benchmarks"
echo
echo "Reproduce from the repository root: \`$(echo bench/run.sh "$@")\` (what \`make bench\` runs)."
echo
step "execbench"
"$tmp/execbench" -sidecar "$tmp/sidecar" "${ssh_flags[@]}" "$@"

echo
echo "## Policy classification on one core"
echo
echo "\`go test -run '^\$' -bench ClassifyLatency -benchtime 20000x -cpu 1 ./internal/policy/\`"
echo
echo '```'
step "classification latency on one core"
go test -run '^$' -bench ClassifyLatency -benchtime 20000x -cpu 1 ./internal/policy/
echo '```'

echo
echo "## Go micro-benchmarks"
echo
echo "\`go test -run '^\$' -bench . -benchmem ./internal/...\`"
echo
echo '```'
step "go micro-benchmarks"
go test -run '^$' -bench . -benchmem ./internal/...
echo '```'
