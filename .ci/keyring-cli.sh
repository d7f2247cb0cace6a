#!/usr/bin/env bash
# The tilookup binary itself against the real Secret Service: auth login,
# status, token and logout round-trip through gnome-keyring, a second client
# (secret-tool) sees the stored item, and no command but `auth token` ever
# prints the token, --debug included. Run inside a D-Bus session with an
# unlocked gnome-keyring (see keyring-test.sh). TL is the binary.
set -euo pipefail
: "${TL:?set TL to the tilookup binary}"
token="kr-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
work=$(mktemp -d)
trap 'kill $srv_pid 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
unset TILOOKUP_TOKEN

# A sandbox that accepts our random token.
"$TL" sandbox serve --quiet --token "$token" >"$work/serve.out" 2>&1 &
srv_pid=$!
for _ in $(seq 50); do grep -q '^events:' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
search_url=$(awk '/^search:/ {print $2}' "$work/serve.out")
events_url=$(awk '/^events:/ {print $2}' "$work/serve.out")
host=${search_url#http://}
"$TL" config set base_url "$search_url"
"$TL" config set events_base_url "$events_url"

fail() { echo "keyring-cli: $*" >&2; exit 1; }
leak() { if grep -qF "$token" "$@"; then fail "the token leaked into $*"; fi; }

# A token the service refuses is checked before anything is stored.
set +e
printf 'refused-%s\n' "$token" | "$TL" auth login --with-token >"$work/o" 2>"$work/e"; code=$?
set -e
[ "$code" = 4 ] || fail "a refused token: auth login exited $code, want 4: $(cat "$work/e")"
if secret-tool lookup service tilookup username "$host" >/dev/null 2>&1; then fail "a refused token was stored"; fi

printf '%s\n' "$token" | "$TL" auth login --with-token >"$work/o" 2>"$work/e"
leak "$work/o" "$work/e"
grep -q 'accepted by the service' "$work/e" || fail "auth login did not check the token: $(cat "$work/e")"
[ "$(secret-tool lookup service tilookup username "$host")" = "$token" ] || fail "secret-tool does not see the stored token for $host"

[ "$("$TL" auth token)" = "$token" ] || fail "auth token did not print the stored token"

"$TL" auth status >"$work/o" 2>"$work/e" || fail "auth status failed: $(cat "$work/o" "$work/e")"
leak "$work/o" "$work/e"
grep -q 'from the OS keyring' "$work/o" || fail "auth status does not name the keyring: $(cat "$work/o")"
grep -q 'search: accepted by the service' "$work/o" || fail "the search service did not accept the keyring token: $(cat "$work/o")"
grep -q 'events: accepted by the service' "$work/o" || fail "auth status did not check the events host: $(cat "$work/o")"

"$TL" search --debug -o json 44d88612fea8a8f36de82e1278abb02f >"$work/o" 2>"$work/e" || fail "search with the keyring token failed: $(cat "$work/e")"
leak "$work/o" "$work/e"
grep -q 'Bearer \[redacted\]' "$work/e" || fail "--debug log lacks the redacted header"
"$TL" events me --debug >"$work/o" 2>"$work/e" || fail "events me with the keyring token failed: $(cat "$work/e")"
leak "$work/o" "$work/e"

"$TL" auth logout >"$work/o" 2>"$work/e"
leak "$work/o" "$work/e"
if secret-tool lookup service tilookup username "$host" >/dev/null 2>&1; then fail "the item survived logout"; fi
set +e
"$TL" search 44d88612fea8a8f36de82e1278abb02f >"$work/o" 2>"$work/e"; code=$?
set -e
[ "$code" = 3 ] || fail "after logout search exited $code, want 3"
grep -q 'auth login' "$work/e" || fail "after logout the error does not name auth login"
grep -q "no token for $host" "$work/e" || fail "after logout the error does not say which host has no token: $(cat "$work/e")"
echo "keyring-cli: login, status, token, search, events and logout round-tripped through the real keyring"
