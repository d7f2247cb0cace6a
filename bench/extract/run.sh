#!/usr/bin/env bash
# Times ioc.ExtractReader (all types) against grep -Eo for IPv4 addresses on
# the same ~50 MB synthetic report, and prints MB/s for both and the ratio.
# Run from the repository root: bash bench/extract/run.sh [SIZE_MB]
set -euo pipefail

mb=${1:-50}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/gen" ./bench/extract/gen
go build -o "$tmp/extract" ./bench/extract/extract
"$tmp/gen" -mb "$mb" >"$tmp/report.txt"
bytes=$(wc -c <"$tmp/report.txt")

# seconds runs a command three times and prints the best wall-clock time.
# Output goes to a real file: GNU grep stops at the first match when its
# output is /dev/null.
seconds() {
	local best="" t0 t1 t
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >"$tmp/out" 2>/dev/null
		t1=$(date +%s.%N)
		t=$(echo "$t1 - $t0" | bc -l)
		if [[ -z $best ]] || (($(echo "$t < $best" | bc -l))); then
			best=$t
		fi
	done
	echo "$best"
}

# The headline compares with grep in the environment's own locale; grep is
# faster with LC_ALL=C (no multibyte handling), so that is shown too.
grep_s=$(seconds grep -Eo '([0-9]{1,3}\.){3}[0-9]{1,3}' "$tmp/report.txt")
grepc_s=$(seconds env LC_ALL=C grep -Eo '([0-9]{1,3}\.){3}[0-9]{1,3}' "$tmp/report.txt")
ours_s=$(seconds "$tmp/extract" "$tmp/report.txt")

mbps() { echo "scale=1; $bytes / 1048576 / $1" | bc -l; }
grep_mbps=$(mbps "$grep_s")
ours_mbps=$(mbps "$ours_s")
printf 'input:                    %d bytes\n' "$bytes"
printf 'locale for grep:          LC_ALL=%s LC_CTYPE=%s\n' "${LC_ALL:-}" "$(locale 2>/dev/null | sed -n 's/^LC_CTYPE=//p' | tr -d '"')"
printf 'CPUs:                     %s (GOMAXPROCS=%s)\n' "$(nproc)" "${GOMAXPROCS:-default}"
printf 'grep -Eo (IPv4 only):     %s MB/s (%.3f s)\n' "$grep_mbps" "$grep_s"
printf '  same with LC_ALL=C:     %s MB/s (%.3f s)\n' "$(mbps "$grepc_s")" "$grepc_s"
printf 'ioc.ExtractReader (all):  %s MB/s (%.3f s)\n' "$ours_mbps" "$ours_s"
printf 'ratio ours/grep:          %s\n' "$(echo "scale=2; $grep_s / $ours_s" | bc -l)"
printf 'found by grep:            %d matches\n' "$(grep -Eo '([0-9]{1,3}\.){3}[0-9]{1,3}' "$tmp/report.txt" | wc -l)"
printf 'found by ours:            %d indicators\n' "$("$tmp/extract" "$tmp/report.txt" 2>/dev/null | wc -l)"
