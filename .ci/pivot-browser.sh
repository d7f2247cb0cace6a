#!/usr/bin/env bash
# pivot's drawings checked by the real programs that read them: Graphviz
# (dot -Tsvg) on every DOT the tests write, and headless Chromium on the
# HTML page of a 30-node walk (every node's label in the DOM, a screenshot
# that is a drawing). CI=true turns a missing dot or chromium into a
# failure instead of a skip; .ci/run installs the graphviz and chromium
# packages. Then the same on the sandbox walk of the README, through the
# binary.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v dot >/dev/null || { echo "dot (graphviz) is missing"; exit 1; }
command -v chromium >/dev/null || { echo "chromium is missing"; exit 1; }

CI=true go test -count=1 -run 'TestDOTGraphviz|TestHTMLInBrowser' -v ./pkg/pivot

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/tilookup" ./cmd/tilookup
"$tmp/tilookup" pivot --sandbox --depth 2 -o dot 44d88612fea8a8f36de82e1278abb02f | dot -Tsvg >"$tmp/pivot.svg"
grep -q 'cdn&#45;sync\[\.\]example\[\.\]org' "$tmp/pivot.svg" || { echo "the sandbox walk's SVG lacks cdn-sync[.]example[.]org (Graphviz writes - as &#45;)"; exit 1; }
"$tmp/tilookup" pivot --sandbox --depth 2 -o html 44d88612fea8a8f36de82e1278abb02f >"$tmp/pivot.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/profile" --dump-dom "file://$tmp/pivot.html" 2>/dev/null >"$tmp/dom.html"
nodes=$(grep -o 'class="node"' "$tmp/dom.html" | wc -l)
echo "sandbox walk: $nodes nodes drawn"
[ "$nodes" -ge 50 ] || { echo "the sandbox walk's page drew $nodes nodes, want 50 or more"; exit 1; }
