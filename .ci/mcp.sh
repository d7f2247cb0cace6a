#!/usr/bin/env bash
# A real MCP client drives tilookup mcp: the official TypeScript SDK
# (@modelcontextprotocol/sdk, pinned in .ci/mcp/package-lock.json) launches
# `tilookup mcp --sandbox` over stdio, lists the tools and calls search and
# triage, then does the same over Streamable HTTP on loopback and checks
# that a request without the bearer token is refused; then, as an assistant
# given --tools search,pivot,watch, gets every prompt and runs each end to
# end, compares the watch tool's changes with tilookup watch's for the same
# change, and calls watch 4 times at once on one list. Needs Node.js 18 or
# newer and npm: under CI=true their absence fails the run; elsewhere the
# step is skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."

missing() {
	if [ "${CI:-}" = true ]; then
		echo "mcp.sh: $1"; exit 1
	fi
	echo "mcp.sh: $1; skipped (set CI=true to make this an error)"; exit 0
}
command -v node >/dev/null && command -v npm >/dev/null || missing "node and npm are not installed (apt-get install nodejs npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || missing "node $(node --version) is too old: the MCP SDK needs 18 or newer"
echo "node $(node --version), npm $(npm --version)"

(cd .ci/mcp && npm ci --no-audit --no-fund --loglevel=error)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/tilookup" ./cmd/tilookup
# A home and config of its own: --sandbox needs neither a token nor a file.
export HOME="$work" TILOOKUP_CONFIG="$work/config.yaml"
unset TILOOKUP_TOKEN TILOOKUP_PROFILE TILOOKUP_BASE_URL TILOOKUP_EVENTS_BASE_URL
node .ci/mcp/client.mjs "$work/tilookup"
