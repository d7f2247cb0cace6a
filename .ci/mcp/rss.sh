#!/usr/bin/env bash
# Peak RSS of `tilookup mcp` answering one search whose answer is hostile
# in size (issue 28): 10M empty results (30 MB), and a preview record of
# 1M keys. A local server (python3) serves the answer; the MCP session is
# piped on stdin; GNU time reports the peak. Usage:
#   .ci/mcp/rss.sh [path/to/tilookup]     (default: builds ./cmd/tilookup)
# Prints one line per case: the answer's size, the peak RSS, the time, and
# the start of the tool's answer. Not part of CI (it takes a minute and
# ~100 MB of disk); the figures are in the README's MCP section.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	go build -o "$work/tilookup" ./cmd/tilookup
	bin=$work/tilookup
fi
command -v /usr/bin/time >/dev/null || { echo "rss.sh: needs GNU time (apt-get install time)"; exit 1; }

python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
with open(w + "/results.json", "w") as f:
    f.write('{"query":"a.example","detected_type":"domain","strategy":"exact","results":[')
    f.write(",".join(["{}"] * 10_000_000))
    f.write("]}")
with open(w + "/keys.json", "w") as f:
    f.write('{"query":"a.example","results":[{"resource":"r","label":"R","count":1,"preview":[{')
    f.write(",".join('"k%d":%d' % (i, i) for i in range(1_000_000)))
    f.write("}]}]}")
PY

cat > "$work/serve.py" <<'PY'
import http.server, sys
body = open(sys.argv[1], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
PY

session='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rss","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"values":["a.example"]}}}'

port=18931
for case in results keys; do
	python3 "$work/serve.py" "$work/$case.json" $port &
	sleep 1
	export HOME=$work TILOOKUP_CONFIG=$work/config.yaml TILOOKUP_BASE_URL=http://127.0.0.1:$port TILOOKUP_TOKEN=rss-token-0123456789
	/usr/bin/time -f '%M %e' -o "$work/time" "$bin" mcp <<<"$session" >"$work/out" 2>"$work/err" || true
	read -r kb secs <"$work/time"
	size=$(stat -c %s "$work/$case.json")
	resources=$(grep -o "resources_matched[^,]*" "$work/out" | head -n1 | tr -d "\\\\\"")
	echo "$case ($resources): answer $((size / 1000000)) MB, peak RSS $((kb / 1024)) MiB, ${secs}s; $(tail -n1 "$work/out" | cut -c1-160)"
	grep -v '^$' "$work/err" | head -n3 || true
	kill %1; wait %1 2>/dev/null || true
	port=$((port + 1))
done
