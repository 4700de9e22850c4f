#!/usr/bin/env bash
# bench/dns/run.sh: Agent DNS against CoreDNS, measured by dnsperf in one run.
#
# Both resolvers forward to the same local upstream (Debian's dnsmasq answering
# every *.bench.test name itself) and are driven with the same query files:
#   cached   1,000 names asked over and over (answered from each resolver's cache)
#   mix      nine cached names to one first-seen name (forwarded once, and for
#            Agent DNS: a new inventory entry and a new_query event)
#   cached, 100k   the cached workload with 100,000 names already in the inventory
# Agent DNS runs `sidecar dns serve` with a learn-mode policy and its event log on;
# CoreDNS runs `forward` and `cache`. Each figure is the median of ROUNDS rounds
# that alternate between the resolvers; every round starts fresh processes.
# Throughput is dnsperf at full speed; latency percentiles come from a separate
# run at a fixed rate (DNS_BENCH_RATE), so they show the resolver, not a queue.
#
#   bench/dns/run.sh                     # as root: installs dnsperf and dnsmasq if missing
#   DNS_BENCH_SECONDS=5 DNS_BENCH_ROUNDS=1 bench/dns/run.sh     # quicker
#
# Environment: DNS_BENCH_SECONDS (10), DNS_BENCH_ROUNDS (3), DNS_BENCH_RATE (5000),
# DNS_BENCH_CLIENTS (8), COREDNS_VERSION (v1.15.0), COREDNS_BIN (skip the build),
# SIDECAR_BIN (skip building ./cmd/sidecar).
# The report is markdown on stdout; progress goes to stderr. Only 127.0.0.1 is used.
set -euo pipefail

seconds="${DNS_BENCH_SECONDS:-10}"
rounds="${DNS_BENCH_ROUNDS:-3}"
rate="${DNS_BENCH_RATE:-5000}"
clients="${DNS_BENCH_CLIENTS:-8}"
coredns_version="${COREDNS_VERSION:-v1.15.0}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
pids=()

step() { echo "==> $*" >&2; }

cleanup() {
	local rc=$?
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need() { # need BINARY DEBIAN_PACKAGE
	if command -v "$1" >/dev/null || [[ -x "/usr/sbin/$1" ]]; then
		return
	fi
	if [[ "$(id -u)" != 0 ]]; then
		echo "bench/dns: $1 not found; install Debian's $2" >&2
		exit 1
	fi
	step "apt-get install $2"
	apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >&2
}
need dnsperf dnsperf
need dnsmasq dnsmasq-base
dnsmasq_bin="$(command -v dnsmasq || echo /usr/sbin/dnsmasq)"

# free_port prints a loopback port free for UDP and TCP just now.
free_port() {
	python3 - <<'PY'
import socket
while True:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0)); p = u.getsockname()[1]
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        t.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        u.close(); t.close()
PY
}

# wait_dns PORT: until something answers DNS on 127.0.0.1:PORT (10 s at most).
wait_dns() {
	echo "ready.bench.test A" >"$tmp/ready.txt"
	for _ in $(seq 1 100); do
		if dnsperf -s 127.0.0.1 -p "$1" -d "$tmp/ready.txt" -n 1 -t 1 2>/dev/null | grep -q 'Queries completed: *1 '; then
			return 0
		fi
		sleep 0.1
	done
	echo "bench/dns: nothing answers on 127.0.0.1:$1" >&2
	return 1
}

stop() { # stop PID: end one process this script started
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

if [[ -n "${SIDECAR_BIN:-}" ]]; then
	sidecar="$SIDECAR_BIN"
else
	step "build sidecar"
	(cd "$root" && go build -o "$tmp/sidecar" ./cmd/sidecar)
	sidecar="$tmp/sidecar"
fi
if ! "$sidecar" dns --help >/dev/null 2>&1; then
	echo "bench/dns: $sidecar has no dns verb (internal/cli/root.go must add newDNSCmd)" >&2
	exit 1
fi

if [[ -n "${COREDNS_BIN:-}" ]]; then
	coredns="$COREDNS_BIN"
else
	# Built in a module of its own from the Go module proxy; Sidecar's go.mod
	# never sees it.
	step "build CoreDNS $coredns_version (go install; the first time downloads its modules)"
	mkdir -p "$tmp/coredns-build"
	(cd "$tmp/coredns-build" && GOFLAGS=-mod=mod GOBIN="$tmp/bin" go install "github.com/coredns/coredns@$coredns_version") >&2
	coredns="$tmp/bin/coredns"
fi

step "upstream: dnsmasq answering *.bench.test itself"
up_port="$(free_port)"
"$dnsmasq_bin" --keep-in-foreground --no-resolv --no-hosts --listen-address=127.0.0.1 --bind-interfaces \
	--port="$up_port" --address=/bench.test/192.0.2.1 --local-ttl=3600 --cache-size=0 --dns-forward-max=1000 \
	--user="$(id -un)" --pid-file="$tmp/dnsmasq.pid" --log-facility="$tmp/dnsmasq.log" &
pids+=($!)
wait_dns "$up_port"

step "query files"
for i in $(seq 0 999); do echo "c$i.bench.test A"; done >"$tmp/cached.txt"
# 200,000 queries: 180,000 cached, 20,000 first seen (each name once).
awk 'BEGIN { for (i = 0; i < 200000; i++) { if (i % 10 == 9) printf "f%d.bench.test A\n", i; else printf "c%d.bench.test A\n", i % 1000 } }' >"$tmp/mix.txt"
# 100,000 names for the inventory: the cached names and 99,000 more.
awk 'BEGIN { printf "{\"version\":1,\"policy\":\"bench\",\"exported\":\"2026-01-01T00:00:00Z\",\"names\":["
	for (i = 0; i < 100000; i++) { if (i) printf ","; if (i < 1000) n = "c" i; else n = "i" i; printf "{\"name\":\"%s.bench.test\",\"status\":\"approved\"}", n }
	print "]}" }' >"$tmp/baseline.json"

# start_agentdns PORT [preload]: a fresh Agent DNS with its own state dir.
start_agentdns() {
	local port="$1" state
	state="$(mktemp -d "$tmp/state.XXXXXX")"
	chmod 700 "$state"
	mkdir -m 700 "$state/dns"
	cat >"$state/dns/dns.yaml" <<YAML
listeners: [{name: bench, address: "127.0.0.1:$port"}]
upstreams: [{address: "127.0.0.1:$up_port"}]
cache: {max_entries: 100000}
policies:
  - name: bench
    clients: {listeners: [bench]}
    mode: learn
YAML
	"$sidecar" dns serve --state-dir "$state" 2>"$state/serve.log" &
	server_pid=$!
	pids+=("$server_pid")
	wait_dns "$port"
	if [[ "${2:-}" == preload ]]; then
		"$sidecar" dns baseline import "$tmp/baseline.json" --state-dir "$state" >&2
	fi
}

start_coredns() {
	local port="$1" dir
	dir="$(mktemp -d "$tmp/coredns.XXXXXX")"
	cat >"$dir/Corefile" <<COREFILE
.:$port {
    bind 127.0.0.1
    forward . 127.0.0.1:$up_port
    cache
}
COREFILE
	(cd "$dir" && exec "$coredns" -conf "$dir/Corefile" -quiet) >"$dir/log" 2>&1 &
	server_pid=$!
	pids+=("$server_pid")
	wait_dns "$port"
}

# measure SERVER WORKLOAD: one round; appends "server workload qps p50ms p99ms lost" to results.
measure() {
	local server="$1" workload="$2" port file runs qps lost lat
	port="$(free_port)"
	case "$server" in
	coredns) start_coredns "$port" ;;
	agentdns) start_agentdns "$port" ;;
	agentdns-100k) start_agentdns "$port" preload ;;
	esac
	file="$tmp/cached.txt"
	runs=(-l "$seconds")
	if [[ "$workload" == mix ]]; then
		file="$tmp/mix.txt"
		runs=(-n 1) # once through: every f-name is first seen exactly once
	else
		# warm the cache, as a resolver in use would be
		dnsperf -s 127.0.0.1 -p "$port" -d "$file" -n 1 >/dev/null 2>&1
	fi
	dnsperf -s 127.0.0.1 -p "$port" -d "$file" "${runs[@]}" -c "$clients" -q 256 -t 2 >"$tmp/perf.txt" 2>&1
	qps="$(awk '/Queries per second:/ { print $4 }' "$tmp/perf.txt")"
	lost="$(awk '/Queries lost:/ { print $3 }' "$tmp/perf.txt")"
	# Latency at a fixed rate, a fresh process again for the mix (its f-names
	# were seen above).
	if [[ "$workload" == mix ]]; then
		stop "$server_pid"
		case "$server" in
		coredns) start_coredns "$port" ;;
		*) start_agentdns "$port" ;;
		esac
	fi
	dnsperf -s 127.0.0.1 -p "$port" -d "$file" -l 4 -Q "$rate" -c 1 -t 2 -v 2>/dev/null |
		awk '/^> / { print $NF * 1000 }' | sort -n >"$tmp/lat.txt"
	lat="$(awk '{ v[NR] = $1 } END { if (NR == 0) { print "- -"; exit } printf "%.3f %.3f\n", v[int(NR * 0.50) + 1], v[int(NR * 0.99) + 1] }' "$tmp/lat.txt")"
	stop "$server_pid"
	echo "$server $workload $qps $lat $lost" >>"$tmp/results.txt"
	echo "    $server $workload: $qps qps, p50/p99 ms $lat, lost $lost" >&2
}

: >"$tmp/results.txt"
for r in $(seq 1 "$rounds"); do
	step "round $r of $rounds"
	for workload in cached mix; do
		measure coredns "$workload"
		measure agentdns "$workload"
	done
	measure agentdns-100k cached
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { # col SERVER WORKLOAD N
	awk -v s="$1" -v w="$2" -v n="$3" '$1 == s && $2 == w { print $n }' "$tmp/results.txt" | median
}

echo "## Agent DNS against CoreDNS ($(date -u +%Y-%m-%d))"
echo
echo "Command: \`bench/dns/run.sh\` with DNS_BENCH_SECONDS=$seconds DNS_BENCH_ROUNDS=$rounds DNS_BENCH_RATE=$rate DNS_BENCH_CLIENTS=$clients."
echo "Machine: $(nproc) cores, $(uname -r), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)."
echo "CoreDNS $coredns_version (\`forward\` + \`cache\`), dnsperf $(dnsperf -h 2>&1 | awk '/^Version/ { print $2 }'), upstream dnsmasq $("$dnsmasq_bin" --version | awk 'NR == 1 { print $3 }') on loopback."
echo "Medians of $rounds rounds. QPS: dnsperf at full speed, $clients clients. Latency: dnsperf at $rate qps."
echo
echo "| workload | resolver | QPS | vs CoreDNS | p50 ms | p99 ms | lost |"
echo "|---|---|---:|---:|---:|---:|---:|"
for row in "cached coredns" "cached agentdns" "cached agentdns-100k" "mix coredns" "mix agentdns"; do
	set -- $row
	qps="$(col "$2" "$1" 3)"
	base="$(col coredns "$1" 3)"
	ratio="$(awk -v a="$qps" -v b="$base" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')"
	name="$2"
	case "$2" in
	coredns) name="CoreDNS" ;;
	agentdns) name="Agent DNS" ;;
	agentdns-100k) name="Agent DNS, 100k names in inventory" ;;
	esac
	printf "| %s | %s | %.0f | %s | %s | %s | %s |\n" "$1" "$name" "$qps" "$ratio" "$(col "$2" "$1" 4)" "$(col "$2" "$1" 5)" "$(col "$2" "$1" 6)"
done
small="$(col agentdns cached 3)"
big="$(col agentdns-100k cached 3)"
echo
echo "Agent DNS cached QPS with 100,000 names in the inventory: $(awk -v a="$big" -v b="$small" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }') against a small inventory."
