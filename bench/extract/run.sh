#!/usr/bin/env bash
# Extraction side by side with ripgrep, in one run, on bench/extract/gen's
# synthetic report (SIZE_MB, 50 by default): MB/s of wall time and MB per
# CPU-second for tilookup extract (all types), the library alone,
# rg -o with one IPv4 regex and rg -o with the union regex of every type
# (the last line of ../shared/extract-union.txt, or $UNION), then the ratios
# of issue 40 (see bench/extract/compare). Wall time on a shared machine
# is noise; with -c it also prints instruction counts under callgrind
# (GOMAXPROCS=1, a 5 MiB report), which are stable, with the library
# built with and without its vector scan.
# With BASELINE=/path/to/tilookup, that build runs in the same turns and
# the ratios to it are printed too.
# Run from the repository root: bash bench/extract/run.sh [-c] [SIZE_MB]
set -euo pipefail

callgrind=false
if [[ ${1:-} == -c ]]; then
	callgrind=true
	shift
fi
mb=${1:-50}
union=${UNION:-../shared/extract-union.txt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# As the release builds them (CGO_ENABLED=0, -trimpath, -ldflags=-s -w).
build() { CGO_ENABLED=0 go build -trimpath -ldflags=-s\ -w -o "$1" "$2"; }
build "$tmp/gen" ./bench/extract/gen
build "$tmp/extract" ./bench/extract/extract
build "$tmp/tilookup" ./cmd/tilookup
go build -o "$tmp/compare" ./bench/extract/compare
"$tmp/gen" -mb "$mb" >"$tmp/report.txt"

args=(-report "$tmp/report.txt" -tilookup "$tmp/tilookup" -extract "$tmp/extract")
if [[ -n ${BASELINE:-} ]]; then
	args+=(-baseline "$BASELINE")
fi
if [[ -f $union ]]; then
	args+=(-union "$union")
else
	echo "no $union: the union regex row is left out"
fi
"$tmp/compare" "${args[@]}"

if $callgrind; then
	"$tmp/gen" -mb 5 >"$tmp/small.txt"
	CGO_ENABLED=0 go build -tags purego -trimpath -ldflags=-s\ -w -o "$tmp/extract-purego" ./bench/extract/extract
	ir() {
		# Go preempts goroutines with signals, which callgrind cannot follow.
		GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 HOME=$tmp valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>"$tmp/cg.err"
		sed -n 's/.*Collected : //p; s/.*refs: *//p' "$tmp/cg.err" | head -1
	}
	printf 'instructions, 5 MiB report, GOMAXPROCS=1 (callgrind):\n'
	printf '  tilookup extract:   %s\n' "$(ir "$tmp/tilookup" extract "$tmp/small.txt")"
	if [[ -n ${BASELINE:-} ]]; then
		printf '  baseline:           %s\n' "$(ir "$BASELINE" extract "$tmp/small.txt")"
	fi
	printf '  ioc.ExtractReader:  %s\n' "$(ir "$tmp/extract" "$tmp/small.txt")"
	printf '  the same, -tags purego (no vector scan): %s\n' "$(ir "$tmp/extract-purego" "$tmp/small.txt")"
fi
