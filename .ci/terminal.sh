#!/usr/bin/env bash
# tilookup in a real terminal. tmux gives each command a pseudo-terminal of a
# known size (80 and 200 columns), as a person's terminal would; the output is
# read back with `capture-pane -p -J`, which joins the lines the terminal
# wrapped, so a line wider than the pane shows up as one long logical line.
# Each run must have no logical line wider than the pane and must show its
# important fields. Runs: a single-value search, --preview (and Passive DNS
# records found by a domain and by an address, a table at 80), a bulk run from a
# pipe, triage's and detect's tables, `events me`, and `events me` through the default pager (less -FRX),
# quit with q; then bulk runs that must leave no progress bar behind
# (`| head -1`, `| less`) and a Ctrl-C that must say "N of M". Everything runs against the built-in sandbox.
#
# With CI=true a missing tmux is a failure, not a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "terminal.sh: tmux is not installed (CI=true: this is a failure)"
		exit 1
	fi
	echo "terminal.sh: tmux is not installed: skipped"
	exit 0
fi

work=$(mktemp -d)
sock="tilookup-ci-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home"
go build -o "$work/bin/tilookup" ./cmd/tilookup
echo 'set -g history-limit 20000' >"$work/tmux.conf" # the whole output, not the last 2000 lines
export LANG=C.UTF-8 LC_ALL=C.UTF-8 # wc -L counts "…" and "—" as one column

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# run WIDTH NAME COMMAND: runs COMMAND in a fresh WIDTH-column pane and leaves
# the whole logical output (scrollback included) in $work/NAME.txt.
run() {
	local width=$1 name=$2 cmd=$3 out="$work/$2.txt" t=$2
	tmux -L "$sock" -f "$work/tmux.conf" new-session -d -x "$width" -y 50 -s "$t" \
		"env -u COLUMNS TERM=xterm-256color TILOOKUP_PAGER=cat PATH=$work/bin:\$PATH HOME=$work/home XDG_CONFIG_HOME=$work/home/.config bash --norc --noprofile"
	tmux -L "$sock" send-keys -t "$t" "echo __START__; $cmd; echo __DONE__\$?" Enter
	for _ in $(seq 1 300); do
		tmux -L "$sock" capture-pane -p -J -S - -E - -t "$t" >"$out"
		grep -q '^__DONE__' "$out" && break
		sleep 0.1
	done
	tmux -L "$sock" kill-session -t "$t"
	grep -q '^__DONE__0' "$out" || fail "$name: did not finish with exit 0"
	# Keep only the command's output, between the markers.
	sed -i -e '1,/^__START__$/d' -e '/^__DONE__/,$d' "$out"
}

# check WIDTH NAME WANT...: no line wider than the pane; each WANT (a grep
# -E pattern) on screen.
check() {
	local width=$1 name=$2 out="$work/$2.txt" before=$failures
	shift 2
	local lines
	lines=$(wc -l <"$out")
	[ "$lines" -gt 0 ] || fail "$name: no output"
	while IFS= read -r line; do
		local w
		w=$(printf '%s' "$line" | wc -L)
		if [ "$w" -gt "$width" ]; then
			fail "$name: a line is $w columns wide in a $width-column terminal: $line"
		fi
	done <"$out"
	for want in "$@"; do
		grep -Eq -- "$want" "$out" || fail "$name: '$want' is not on screen"
	done
	[ "$failures" -gt "$before" ] || echo "ok   $name ($lines lines)"
}

# aligned WIDTH NAME TITLE ROWS: each line matching ROWS (grep -E) has a
# cell starting where the header's TITLE does.
aligned() {
	local header col
	header=$(grep -m1 -E "(^| )$3( |\$)" "$work/$2.txt" || true)
	col=${header%%"$3"*}
	col=${#col}
	while IFS= read -r line; do
		[ "${line:$col:1}" != " " ] && [ "${line:$((col - 1)):1}" = " " ] ||
			fail "$2: row not aligned with $3 at column $col: $line"
	done < <(grep -E -- "$4" "$work/$2.txt")
}

# A report with a long URL (its host is looked up too) and noise.
cat >"$work/home/report.txt" <<'REPORT'
The loader 44d88612fea8a8f36de82e1278abb02f called home to 203.0.113.66 and
fetched https://login-update.example.net/wp-admin/css/index.php?lang=en from
there; internal hosts 10.1.2.3 and http://169.254.169.254/latest/meta-data/.
REPORT

md5=44d88612fea8a8f36de82e1278abb02f
for width in 80 200; do
	run "$width" "search-$width" "tilookup search --sandbox $md5"
	check "$width" "search-$width" "Query: +$md5" 'LABEL +GROUP +MATCHED COLUMN +COUNT' \
		'Malware samples +malware +md5 +1( |$)' 'Community IOC feed +feeds +indicator +1( |$)'

	run "$width" "preview-$width" "tilookup search --sandbox --preview $md5"
	check "$width" "preview-$width" 'Preview: Malware samples' 'verdict' 'test-file' \
		'9007199254740993' 'sbx-0003'

	# Passive DNS records are a table at 80 columns too: the column that
	# repeats the query left out, the timestamps shown as dates (a "…"
	# says the time was cut) and shown whole at 200. Not a record view.
	# (A tmux session's name holds no ".": the names say domain and ip.)
	for q in domain:login-update.example.net ip:203.0.113.66; do
		name="pdns-${q%%:*}-$width"
		run "$width" "$name" "tilookup search --sandbox --preview ${q#*:}"
		if [ "$width" = 80 ]; then stamp='2025-04-20…'; else stamp='2025-04-20T22:10:27Z'; fi
		check "$width" "$name" 'Preview: Passive DNS' '^rrtype|^domain +rrtype' "^(A +203\.0\.113\.66|login-upd[^ ]+ +A) +$stamp "
		! sed -n '/^Preview: Passive DNS/,/^$/p' "$work/$name.txt" | grep -q 'RECORD' ||
			fail "$name: the Passive DNS preview is a record view"
	done

	run "$width" "bulk-$width" "printf '$md5\n192.0.2.1\nnot a value\n' | tilookup search --sandbox"
	check "$width" "bulk-$width" '^QUERY +TYPE' "^$md5 +md5 +4 " '^192\.0\.2\.1 +ipv4'
	# Streamed rows line up with the header.
	header=$(grep -m1 '^QUERY' "$work/bulk-$width.txt" || true)
	col=${header%%TYPE*}
	col=${#col}
	while IFS= read -r line; do
		[ "${line:$col:1}" != " " ] && [ "${line:$((col - 1)):1}" = " " ] ||
			fail "bulk-$width: row not aligned with TYPE at column $col: $line"
	done < <(grep -E '^(192\.0\.2\.1|44d8)' "$work/bulk-$width.txt")

	# triage's table and detect's: URL host rows and long URLs fit, and
	# the columns line up (TYPE at one column in each section).
	run "$width" "triage-$width" "tilookup triage --sandbox --show-skipped --no-pager ~/report.txt"
	check "$width" "triage-$width" '^Matched \(' 'domain \(URL host\)' 'ipv4 \(URL host\) +link-local address; host of' '^Skipped \('
	aligned "$width" "triage-$width" md5 '^  203\.0\.113\.66 '
	aligned "$width" "triage-$width" domain '^  44d886'
	run "$width" "detect-$width" "tilookup detect 'hxxps://login-update[.]example[.]net/wp-admin/css/index.php?lang=en&session=0123456789abcdef' 198.51.100[.]7"
	check "$width" "detect-$width" '^INPUT +VALUE +TYPE' ' url$' ' ipv4$'
	aligned "$width" "detect-$width" TYPE '( url| ipv4)$'

	run "$width" "events-$width" "tilookup events me --sandbox"
	check "$width" "events-$width" 'user\.username: +demo_analyst' 'organization\.name:' \
		'^events \(12\)' 'evt_18cc618a' 'watchlist_match'
done

# The pager: output longer than the pane stops in less until q.
tmux -L "$sock" -f "$work/tmux.conf" new-session -d -x 80 -y 20 -s t \
	"env -u COLUMNS -u PAGER -u TILOOKUP_PAGER -u LESS TERM=xterm-256color PATH=$work/bin:\$PATH HOME=$work/home XDG_CONFIG_HOME=$work/home/.config bash --norc --noprofile"
tmux -L "$sock" send-keys -t t "tilookup events me --sandbox; echo __DONE__\$?" Enter
paged=false
for _ in $(seq 1 100); do
	screen=$(tmux -L "$sock" capture-pane -p -t t)
	if grep -q 'user\.id:' <<<"$screen" && ! grep -q '^__DONE__' <<<"$screen"; then
		paged=true
		break
	fi
	sleep 0.1
done
[ "$paged" = true ] || fail "pager: events me did not stop in the pager"
tmux -L "$sock" send-keys -t t q
for _ in $(seq 1 50); do
	tmux -L "$sock" capture-pane -p -t t | grep -q '^__DONE__0' && break
	sleep 0.1
done
if tmux -L "$sock" capture-pane -p -t t | grep -q '^__DONE__0'; then
	[ "$paged" = false ] || echo "ok   pager"
else
	fail "pager: q did not end events me with exit 0"
fi

# Bulk runs at a paced rate (--rate), so that a run is still going when
# the screen is read. 2,000 values.
for i in $(seq 0 1999); do echo "h$i.example"; done >"$work/home/iocs.txt"

# session NAME HEIGHT: a fresh pane running a plain shell, as run() starts.
session() {
	tmux -L "$sock" -f "$work/tmux.conf" new-session -d -x 80 -y "$2" -s "$1" \
		"env -u COLUMNS -u PAGER -u TILOOKUP_PAGER -u LESS TERM=xterm-256color PATH=$work/bin:\$PATH HOME=$work/home XDG_CONFIG_HOME=$work/home/.config bash --norc --noprofile"
}
# wait_for NAME PATTERN [TENTHS]: until PATTERN is on the pane's screen.
wait_for() {
	for _ in $(seq 1 "${3:-100}"); do
		tmux -L "$sock" capture-pane -p -t "$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
# no_bar NAME WHAT: no trace of a progress bar on the pane.
no_bar() {
	if tmux -L "$sock" capture-pane -p -t "$1" | grep -Eq 'searching|[0-9]+% \||█'; then
		fail "$2: progress bar residue on screen: $(tmux -L "$sock" capture-pane -p -t "$1" | grep -E 'searching|%|█' | head -1)"
	else
		echo "ok   $2"
	fi
}

# | head -1: the reader goes away after one line; nothing is left behind.
session head 20
tmux -L "$sock" send-keys -t head "tilookup search --sandbox --rate 50 -f ~/iocs.txt -o ndjson | head -1; echo __DONE__" Enter
wait_for head '^__DONE__' 300 || fail "head: the run did not end after its reader went away"
no_bar head "search -f FILE | head -1"
tmux -L "$sock" kill-session -t head

# | less: nothing is drawn over the pager's screen, nor left after q.
session less 20
tmux -L "$sock" send-keys -t less "tilookup search --sandbox --rate 50 -f ~/iocs.txt -o ndjson | less; echo __DONE__" Enter
wait_for less '"query"' || fail "less: the pager showed no record"
sleep 2 # the run goes on under the pager: a bar would be drawn by now
no_bar less "search -f FILE | less (while paging)"
tmux -L "$sock" send-keys -t less q
wait_for less '^__DONE__' 300 || fail "less: q did not end the run"
no_bar less "search -f FILE | less (after q)"
tmux -L "$sock" kill-session -t less

# > file: the bar shows, and Ctrl-C erases it and says "N of M" and how to
# go on.
session ctrlc 20
tmux -L "$sock" send-keys -t ctrlc "tilookup search --sandbox --rate 50 -f ~/iocs.txt -o ndjson >~/out.ndjson; echo __DONE__\$?" Enter
wait_for ctrlc 'searching' || fail "ctrl-c: no progress bar for a run into a file"
tmux -L "$sock" send-keys -t ctrlc C-c
if wait_for ctrlc '^__DONE__130'; then
	screen=$(tmux -L "$sock" capture-pane -p -J -t ctrlc) # -J: the line as one, unwrapped
	line=$(grep -E '^interrupted: [0-9]+ of 2000 values done' <<<"$screen" || true)
	n=$(sed -E 's/^interrupted: ([0-9]+) of.*/\1/' <<<"$line")
	if [ -z "$line" ] || ! grep -q -- "--skip $n and its output appended (>>" <<<"$line"; then
		fail "ctrl-c: no 'N of 2000 values done ... --skip N' line: $screen"
	elif [ "$(wc -l <"$work/home/out.ndjson")" != "$n" ]; then
		fail "ctrl-c: $n values done but $(wc -l <"$work/home/out.ndjson") records written"
	else
		echo "ok   ctrl-c: $line"
	fi
	no_bar ctrlc "search -f FILE > out (after Ctrl-C)"
else
	fail "ctrl-c: the run did not end with 130"
fi
tmux -L "$sock" kill-session -t ctrlc

if [ "$failures" -gt 0 ]; then
	echo "terminal.sh: $failures failure(s); outputs kept in $work" >&2
	trap - EXIT
	tmux -L "$sock" kill-server 2>/dev/null || true
	exit 1
fi
echo "terminal.sh: all checks passed"
