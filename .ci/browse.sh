#!/usr/bin/env bash
# tilookup browse in a real terminal, driven with keys as a person would:
# `tilookup triage --sandbox -o json report | tilookup browse -` in an 80x24
# tmux pane (the document on stdin, the keys from the terminal), then: the
# list shows, / filters (a pasted, defanged value too), enter opens a match
# and its preview records, esc goes back, G and g go to the last and first
# row, ? lists the keys, space marks three indicators, e writes them
# to Markdown, q quits with exit 0 and the terminal restored (the shell's
# prompt and the earlier output are back: no alternate screen left behind).
# `tilookup triage --sandbox -i report.txt` opens the same browser on its own
# run, p pivots from an indicator live (the sandbox's notice on the status
# line, not over the screen), and q leaves with triage's exit status. o
# refuses a javascript: detail URL. Without a terminal, browse
# and -i are a usage error (exit 2).
#
# With CI=true a missing tmux is a failure, not a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "browse.sh: tmux is not installed (CI=true: this is a failure)"
		exit 1
	fi
	echo "browse.sh: tmux is not installed: skipped"
	exit 0
fi

work=$(mktemp -d)
sock="tilookup-browse-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home"
go build -o "$work/bin/tilookup" ./cmd/tilookup
export LANG=C.UTF-8 LC_ALL=C.UTF-8

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

cat >"$work/report.txt" <<'EOF'
Dropper 44d88612fea8a8f36de82e1278abb02f beaconed to cdn-sync.example[.]org
and verify-check.example, from 10.0.0.5; see also 185.220.101[.]5.
EOF

t=browse
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -s "$t" \
	"env -u COLUMNS TERM=xterm-256color NO_COLOR=1 PATH=$work/bin:\$PATH HOME=$work/home XDG_CONFIG_HOME=$work/home/.config bash --norc --noprofile"
send() { tmux -L "$sock" send-keys -t "$t" "$@"; }
screen() { tmux -L "$sock" capture-pane -p -t "$t"; }

# wait_for NAME PATTERN: waits up to 10 s for PATTERN (grep -E) on screen (the
# typed command line is on screen too: "__EXIT__[0-9]" is the output, not
# the "echo __EXIT__$?" typed),
# and keeps the screen in $work/NAME.txt.
wait_for() {
	local name=$1 pattern=$2
	for _ in $(seq 1 100); do
		screen >"$work/$name.txt"
		grep -Eq "$pattern" "$work/$name.txt" && return 0
		sleep 0.1
	done
	fail "$name: /$pattern/ not on screen:"
	cat "$work/$name.txt"
	return 0
}

# wait_row NAME LINE: waits up to 10 s for the cursor ("> ") on screen line
# LINE, and keeps the screen in $work/NAME.txt.
wait_row() {
	local name=$1 line=$2
	for _ in $(seq 1 100); do
		screen >"$work/$name.txt"
		sed -n "${line}p" "$work/$name.txt" | grep -q '^> ' && return 0
		sleep 0.1
	done
	fail "$name: the cursor is not on line $line:"
	cat "$work/$name.txt"
	return 0
}

# fits NAME: the screen kept as NAME has no line wider than 80 columns.
fits() {
	local w
	w=$(wc -L <"$work/$1.txt")
	[ "$w" -le 80 ] || fail "$1: a line is $w columns wide"
}

send "cd $work && echo __BEFORE__ && tilookup triage --sandbox -o json report.txt | tilookup browse -; echo __EXIT__\$?" Enter
wait_for list 'Triage of stdin'
grep -q '44d88612fea8a8f36de82e1278abb02f' "$work/list.txt" || fail "list: the hash is not listed"
grep -q 'STATUS' "$work/list.txt" || fail "list: no column heads"
fits list
all=$(grep -oE '[0-9]+ shown' "$work/list.txt")

send /
send -l sync
wait_for filter '1 shown'
grep -q 'cdn-sync.example.org' "$work/filter.txt" || fail "filter: cdn-sync.example.org is not the one shown"
send Enter # leaves the filter line
send Enter # opens the indicator
wait_for open 'Matches \('
grep -q 'detail: http' "$work/open.txt" || fail "open: no detail URL"
grep -q 'Preview records of' "$work/open.txt" || fail "open: no preview records"
fits open
send Escape
wait_for back 'filter: sync'
send Escape # clears the filter
wait_for cleared "$all" # every indicator again

# A bracketed paste of a defanged value filters by its refanged form.
send /
tmux -L "$sock" set-buffer -b defanged 'cdn-sync[.]example[.]org'
tmux -L "$sock" paste-buffer -p -b defanged -t "$t"
wait_for pasted '1 shown'
grep -q '> .*cdn-sync.example.org' "$work/pasted.txt" || fail "paste: cdn-sync.example.org is not the one shown"
send Enter
send Escape # clears the filter
wait_for cleared2 "$all"

# G goes to the last row (a terminal sends it as shift+g), g back to the
# first: the rows start on line 3, and all of them fit.
send G
wait_row last $((2 + ${all% shown}))
send g
wait_row first 3

send '?'
wait_for help 'any key goes back'
send x
wait_for list2 'STATUS'

# Mark the first three and write them to ticket.md.
send Space Space Space
wait_for marked '3 marked'
send e
wait_for prompt 'export to:'
send C-u
send -l ticket.md
send Enter
wait_for exported 'wrote 3 indicators to ticket.md'
send q
wait_for quit '__EXIT__[0-9]'
grep -q '__EXIT__0' "$work/quit.txt" || fail "q: exit status is not 0: $(grep __EXIT__ "$work/quit.txt")"
grep -q '__BEFORE__' "$work/quit.txt" || fail "quit: the terminal's earlier output is not back (alternate screen left on)"
[ -s "$work/ticket.md" ] || fail "ticket.md is empty or missing"
[ "$(grep -c '^| `' "$work/ticket.md" || true)" -ge 1 ] || fail "ticket.md has no match row"

# o opens only an http(s) URL: a javascript: link is refused on the status
# line and never reaches $BROWSER.
printf '#!/bin/sh\necho "$@" >>"%s/opened.txt"\n' "$work" >"$work/browser.sh"
chmod +x "$work/browser.sh"
printf '%s\n' '{"nodes":[{"id":"n1","value":"evil.example.com","type":"domain","depth":0,"status":"matched","resources":[{"resource":"passive_dns","label":"Passive DNS","count":2,"detail_url":"javascript:alert(3)"}]}],"edges":[]}' >"$work/evil.json"
send "clear; BROWSER=$work/browser.sh tilookup browse evil.json; echo __EXIT__\$?" Enter
wait_for evil 'Pivot of evil.json'
send o
wait_for refused 'is not an http'
[ ! -e "$work/opened.txt" ] || fail "o: javascript: reached the browser: $(cat "$work/opened.txt")"
send q
wait_for evilquit '__EXIT__[0-9]'

# Ctrl-C restores the terminal too, and says interrupted (130).
send "clear; tilookup triage --sandbox -o json report.txt > doc.json; tilookup browse doc.json; echo __EXIT__\$?" Enter
wait_for list3 'Triage of doc.json'
send C-c
wait_for ctrlc '__EXIT__[0-9]'
grep -q '__EXIT__130' "$work/ctrlc.txt" || fail "ctrl+c: exit status is not 130: $(grep __EXIT__ "$work/ctrlc.txt")"

# triage -i: the same run browsed straight away, p pivots; q leaves with triage's own
# exit status (0: an indicator matched), as without -i.
send "clear; tilookup triage --sandbox -i report.txt; echo __EXIT__\$?" Enter
wait_for interactive 'Triage of report.txt'
grep -q '44d88612fea8a8f36de82e1278abb02f' "$work/interactive.txt" || fail "triage -i: the hash is not listed"
fits interactive
# p: one hop from the hash, looked up live in the sandbox; its new
# neighbours join the list.
send p
wait_for pivoted 'pivot from 44d88612fea8a8f36de82e1278abb02f: [0-9]+ new'
fits pivoted
# The sandbox's notice is on the status line, not printed over the screen.
grep -q 'Using the built-in sandbox' "$work/pivoted.txt" || fail "p: the sandbox's notice is not on the status line"
head -1 "$work/pivoted.txt" | grep -q '^Triage of report.txt' || fail "p: the screen was written over: $(head -1 "$work/pivoted.txt")"
send q
wait_for iquit '__EXIT__[0-9]'
grep -q '__EXIT__0' "$work/iquit.txt" || fail "triage -i, q: exit status is not 0: $(grep __EXIT__ "$work/iquit.txt")"

# Without a terminal: a usage error, exit 2.
set +e
"$work/bin/tilookup" browse "$work/doc.json" </dev/null >"$work/notty.txt" 2>&1
code=$?
set -e
[ "$code" = 2 ] || fail "without a terminal: exit $code, want 2"
set +e
"$work/bin/tilookup" triage --sandbox -i "$work/report.txt" </dev/null >"$work/notty-i.txt" 2>&1
code=$?
set -e
[ "$code" = 2 ] || fail "triage -i without a terminal: exit $code, want 2"

if [ "$failures" -gt 0 ]; then
	echo "browse.sh: $failures failure(s)"
	exit 1
fi
echo "browse.sh: the list, a filter (typed, and pasted defanged), an opened match, G and g, the help, three marked and exported, o refusing javascript:, q and ctrl+c at 80x24, triage -i, p (notice on the status line) and q; exit 2 without a terminal"
