#!/usr/bin/env bash
# Tests pkg/credentials against a real Secret Service (gnome-keyring on a
# private D-Bus session), then on a machine with no session bus at all.
#
# Runs as root on a fresh Debian 12 machine, non-interactively (CI=true, no
# stdin); the caller has already run `apt-get update`. Fails if a test fails,
# and also if one was skipped or did not run, since a skip would otherwise look
# like success.
set -euo pipefail

cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
apt-get install -y dbus dbus-x11 gnome-keyring libsecret-tools procps

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null || { echo "keyring-test: go not found on PATH" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A keyring of our own: "pw" creates and unlocks a fresh login collection, and
# nothing is left in root's home.
export XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# expect_pass LOG TEST...: each TEST must have passed, and nothing skipped or failed.
expect_pass() {
	local log="$1" t ok=1
	shift
	for t in "$@"; do
		if ! grep -q -- "^--- PASS: $t " "$log"; then
			echo "keyring-test: $t did not pass (skipped or did not run)" >&2
			ok=0
		fi
	done
	if grep -E -- "--- (SKIP|FAIL)" "$log" >&2; then
		echo "keyring-test: a test was skipped or failed" >&2
		ok=0
	fi
	[ "$ok" = 1 ]
}

echo "== Secret Service (gnome-keyring on a private session bus)"
ss_log="$work/secret-service.log"
dbus-run-session -- sh -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; TILOOKUP_SECRET_SERVICE_TEST=1 TILOOKUP_SECRET_SERVICE_REQUIRED=1 go test -count=1 -run SecretService -v ./pkg/credentials/' </dev/null 2>&1 |
	grep -v 'Failed to set fd limit' | tee "$ss_log"
expect_pass "$ss_log" TestSecretService TestSecretServiceLockedKeyring TestSecretServiceNoSessionBus TestSecretServiceHangingBus
grep -q -- "--- PASS: TestSecretService/LoginTokenLogout" "$ss_log"
grep -q -- "--- PASS: TestSecretService/LargeToken" "$ss_log"

echo "== the tilookup binary against the real Secret Service"
go build -o "$work/tilookup" ./cmd/tilookup
dbus-run-session -- sh -c 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; TL="$0" bash .ci/keyring-cli.sh' "$work/tilookup" </dev/null 2>&1 |
	grep -v 'Failed to set fd limit' | tee "$work/cli.log"
grep -q '^keyring-cli: login, status' "$work/cli.log"

echo "== No session bus (DBUS_SESSION_BUS_ADDRESS unset, dbus-launch not on PATH)"
if [ -e "/run/user/$(id -u)/bus" ]; then
	echo "keyring-test: /run/user/$(id -u)/bus exists, so godbus would find a bus; cannot simulate a machine without one" >&2
	exit 1
fi
go test -c -o "$work/credentials.test" ./pkg/credentials/
mkdir -p "$work/emptybin" # a PATH with no dbus-launch (dbus-x11) in it
nobus_log="$work/no-bus.log"
env -u DBUS_SESSION_BUS_ADDRESS PATH="$work/emptybin" TILOOKUP_CREDENTIALS_CHILD=nobus \
	"$work/credentials.test" -test.run '^TestSecretServiceNoSessionBus$' -test.v -test.count=1 </dev/null 2>&1 | tee "$nobus_log"
expect_pass "$nobus_log" TestSecretServiceNoSessionBus
grep -q 'there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)' "$nobus_log"

# check_daemons LABEL: runs a few commands that read the keyring with the
# binary $TL and fails if they left a dbus-daemon or gnome-keyring-daemon
# running that was not there before (issue 25: every run used to add a
# pair where there was no session bus, through dbus-launch).
check_daemons() {
	local label="$1" before after args out
	# pgrep matches the 15-byte process name: gnome-keyring-d(aemon).
	daemons() { echo $(($(pgrep -c -x dbus-daemon || true) + $(pgrep -c -x gnome-keyring-d || true))); }
	before="$(daemons)"
	for args in "auth status" "search 198.51.100.7" "search -f /dev/null" "auth token"; do
		# shellcheck disable=SC2086 # each entry is a command line
		out="$(HOME="$TLHOME" XDG_CONFIG_HOME="$TLHOME/.config" TILOOKUP_BASE_URL=https://ti.example.invalid \
			"$TL" $args </dev/null 2>&1 >/dev/null || true)"
		echo "keyring-daemons ($label): tilookup $args: $out"
	done
	sleep 1 # a daemon started in the background shows up a moment later
	after="$(daemons)"
	echo "keyring-daemons ($label): $before before, $after after"
	if [ "$after" -gt "$before" ]; then
		echo "keyring-test: tilookup left $((after - before)) D-Bus or keyring daemon(s) running ($label)" >&2
		pgrep -a -x dbus-daemon >&2 || true
		pgrep -a -x gnome-keyring-d >&2 || true
		return 1
	fi
}

echo "== No daemon left behind (dbus-launch on PATH, as on a desktop install)"
command -v dbus-launch >/dev/null || { echo "keyring-test: dbus-launch (dbus-x11) is needed to show the leak" >&2; exit 1; }
export TL="$work/tilookup" TLHOME="$work/home"
mkdir -p "$TLHOME"
env -u DBUS_SESSION_BUS_ADDRESS bash -c "$(declare -f check_daemons); check_daemons 'no session bus'" </dev/null 2>&1 | tee "$work/daemons-nobus.log"
[ "${PIPESTATUS[0]}" = 0 ]
grep -q 'there is no D-Bus session' "$work/daemons-nobus.log"
dbus-run-session -- bash -c "printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; sleep 1; $(declare -f check_daemons); check_daemons 'dbus-run-session'" </dev/null 2>&1 |
	grep -v 'Failed to set fd limit' | tee "$work/daemons-session.log"
[ "${PIPESTATUS[0]}" = 0 ]

echo "keyring-test: all keyring tests passed"
