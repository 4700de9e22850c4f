#!/usr/bin/env bash
# ssh-baseline.sh: the ssh baseline for Sidecar's exec benchmark.
#
#   ssh-baseline.sh up DIR     start a loopback sshd and a ControlMaster connection
#                              (DIR: new, or an empty directory every user can reach);
#                              prints shell assignments (SSH_BENCH_*) for execbench
#   ssh-baseline.sh down DIR   stop both and remove what `up` created
#
# What is measured is what a Hermes user would otherwise pick: Debian's openssh-server
# on 127.0.0.1, key auth, a throwaway user whose shell start-up files are empty, and a
# ControlMaster connection already up, so `ssh -T host true` pays for one multiplexed
# session, not for a handshake. Needs root (useradd, sshd). Everything lives in DIR,
# which `down` deletes.
set -euo pipefail

user="${SSH_BENCH_USER:-sidecarbench}"

die() { echo "ssh-baseline: $*" >&2; exit 1; }

# ensure_sshd installs Debian's openssh-server when sshd is missing.
ensure_sshd() {
	[[ -x /usr/sbin/sshd ]] && return 0
	echo "ssh-baseline: installing openssh-server" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y openssh-server >&2; then
		apt-get update >&2
		apt-get install -y openssh-server >&2
	fi
	[[ -x /usr/sbin/sshd ]] || die "openssh-server installed but /usr/sbin/sshd is missing"
}

# ensure_user creates the throwaway user with an empty home, or checks that an existing
# one has no shell start-up files that would slow every login down.
ensure_user() {
	local dir="$1" home
	if getent passwd "$user" >/dev/null; then
		home="$(getent passwd "$user" | cut -d: -f6)"
		for f in .bashrc .profile .bash_profile .bash_login; do
			if [[ -s "$home/$f" ]]; then
				die "user $user exists and $home/$f is not empty; remove the user or set SSH_BENCH_USER"
			fi
		done
		return 0
	fi
	home="$dir/home"
	# -M: no copy of /etc/skel; the home below holds only empty start-up files.
	useradd -M -d "$home" -s /bin/bash "$user"
	touch "$dir/created-user"
	# "*" rather than useradd's "!": sshd without PAM refuses a locked account even for
	# key auth, and "*" still matches no password.
	usermod -p '*' "$user"
	mkdir -p "$home"
	: >"$home/.bashrc"
	: >"$home/.profile"
	: >"$home/.hushlogin"
	chown -R "$user:" "$home"
	chmod 0755 "$home"
}

# free_port prints a random loopback TCP port that nothing listens on right now.
free_port() {
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		if ! ss -Htln "sport = :$port" | grep -q .; then
			echo "$port"
			return 0
		fi
	done
	die "no free port found"
}

write_sshd_config() {
	local dir="$1" port="$2"
	cat >"$dir/sshd_config" <<-EOF
		ListenAddress 127.0.0.1
		Port $port
		HostKey $dir/host_ed25519
		PidFile $dir/sshd.pid
		AuthorizedKeysFile $dir/authorized_keys
		AllowUsers $user
		UsePAM no
		PubkeyAuthentication yes
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PermitRootLogin no
		# The keys live in a temp dir under /tmp, which StrictModes would reject.
		StrictModes no
		UseDNS no
		PrintMotd no
		PrintLastLog no
		X11Forwarding no
		AllowAgentForwarding no
		AllowTcpForwarding no
		# Room for concurrent sessions over the one master connection.
		MaxSessions 128
		MaxStartups 128:30:256
		LogLevel ERROR
	EOF
}

# ssh_opts prints the client options every call uses; the harness passes the same ones.
ssh_opts() {
	local dir="$1" port="$2"
	printf '%s\n' -F /dev/null -T -p "$port" -i "$dir/client_ed25519" \
		-o BatchMode=yes -o IdentitiesOnly=yes \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
		-o ControlMaster=auto -o "ControlPath=$dir/cm" -o ControlPersist=yes
}

up() {
	local dir="$1" port
	[[ $EUID -eq 0 ]] || die "needs root (useradd, sshd)"
	if [[ -e "$dir" && -n "$(ls -A "$dir")" ]]; then
		die "$dir is not empty"
	fi
	ensure_sshd
	mkdir -p "$dir" /run/sshd
	chmod 0755 "$dir" # the user must reach authorized_keys and its home.
	ensure_user "$dir"
	runuser -u "$user" -- test -x "$dir" ||
		die "$user cannot reach $dir; every directory above it needs o+x (mktemp -d makes 0700)"

	ssh-keygen -q -t ed25519 -N '' -C sidecar-bench-host -f "$dir/host_ed25519"
	ssh-keygen -q -t ed25519 -N '' -C sidecar-bench-client -f "$dir/client_ed25519"
	install -m 0644 "$dir/client_ed25519.pub" "$dir/authorized_keys"

	# A port can be taken between the check and the bind: retry on a bind failure.
	for _ in 1 2 3 4 5; do
		port="$(free_port)"
		write_sshd_config "$dir" "$port"
		/usr/sbin/sshd -t -f "$dir/sshd_config" || die "sshd rejected $dir/sshd_config"
		# Detached from our stdout, so a caller's $(...) does not wait for sshd.
		/usr/sbin/sshd -D -f "$dir/sshd_config" -E "$dir/sshd.log" </dev/null >/dev/null 2>&1 &
		echo $! >"$dir/sshd.bgpid"
		for _ in $(seq 50); do
			ss -Htln "sport = :$port" | grep -q . && break
			kill -0 "$(cat "$dir/sshd.bgpid")" 2>/dev/null || break
			sleep 0.1
		done
		if ss -Htln "sport = :$port" | grep -q .; then
			break
		fi
		port=""
	done
	[[ -n "$port" ]] || die "sshd did not start; see $dir/sshd.log"

	mapfile -t opts < <(ssh_opts "$dir" "$port")
	# -MNf: authenticate, then leave the master in the background for the harness.
	# Its stdout is redirected for the same reason as sshd's: ssh -f keeps it open.
	ssh "${opts[@]}" -M -N -f "$user@127.0.0.1" </dev/null >/dev/null 2>>"$dir/master.log" ||
		die "master connection failed; see $dir/sshd.log"
	ssh "${opts[@]}" "$user@127.0.0.1" true </dev/null || die "a multiplexed session failed"

	printf 'SSH_BENCH_PORT=%q\nSSH_BENCH_USER=%q\nSSH_BENCH_KEY=%q\nSSH_BENCH_CONTROL=%q\n' \
		"$port" "$user" "$dir/client_ed25519" "$dir/cm"
}

down() {
	local dir="$1" rc=0
	[[ -d "$dir" ]] || return 0
	if [[ -S "$dir/cm" ]]; then
		ssh -F /dev/null -o "ControlPath=$dir/cm" -O exit "$user@127.0.0.1" 2>/dev/null || rc=1
	fi
	if [[ -f "$dir/sshd.bgpid" ]]; then
		local pid
		pid="$(cat "$dir/sshd.bgpid")"
		if kill "$pid" 2>/dev/null; then
			# sshd is not our child here (another shell started it): poll for its exit.
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		fi
	fi
	if [[ -f "$dir/created-user" ]]; then
		# Sessions of the user may still be closing; userdel refuses while they run.
		for _ in $(seq 20); do userdel "$user" 2>/dev/null && break; sleep 0.2; done
		getent passwd "$user" >/dev/null && { echo "ssh-baseline: could not delete user $user" >&2; rc=1; }
	fi
	rm -rf "$dir"
	return "$rc"
}

case "${1:-}" in
up) [[ $# -eq 2 ]] || die "usage: $0 up DIR"; up "$2" ;;
down) [[ $# -eq 2 ]] || die "usage: $0 down DIR"; down "$2" ;;
*) die "usage: $0 up|down DIR" ;;
esac
