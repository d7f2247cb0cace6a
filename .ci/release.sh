#!/usr/bin/env bash
# The release build, offline: every target compiles (each OS has its own
# keyring code), the pinned goreleaser accepts .goreleaser.yaml, and a
# snapshot release produces six archives with checksums, each holding the
# binary, README.md, LICENSE, the four completion scripts and the man pages.
# Then the linux/amd64 archive is used as a user would: its binary reports
# the snapshot version, and `man tilookup` finds the page once the unpacked
# directory is on PATH. Needs root for apt-get (the caller has run apt-get
# update); leaves its output in dist/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

# The newest goreleaser v2 whose module builds with this repo's Go (1.26)
# from the Go module proxy; bump deliberately.
GORELEASER_VERSION=v2.16.0
targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)

step() { printf '\n-- %s\n' "$*"; }
started=$SECONDS

if [ "$(id -u)" = 0 ]; then
	# unzip for the Windows archives, man-db for the `man tilookup` check.
	missing=()
	command -v unzip >/dev/null || missing+=(unzip)
	command -v man >/dev/null || missing+=(man-db)
	if [ ${#missing[@]} -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
fi

step "cross-builds: ${targets[*]}"
t=$SECONDS
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for target in "${targets[@]}"; do
	CGO_ENABLED=0 GOOS=${target%/*} GOARCH=${target#*/} go build -trimpath -o "$out/tilookup-${target/\//-}" ./cmd/tilookup
	echo "built $target"
done
echo "cross-builds took $((SECONDS - t))s"

step "goreleaser $GORELEASER_VERSION"
t=$SECONDS
gobin=$(go env GOPATH)/bin
goreleaser=$gobin/goreleaser
if [ -x "$goreleaser" ] && go version -m "$goreleaser" | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/goreleaser/goreleaser/v2[[:space:]]+$GORELEASER_VERSION[[:space:]]"; then
	echo "cached: $goreleaser"
else
	# GOFLAGS from the caller (-mod=mod) does not apply to installing a
	# module at a version.
	GOFLAGS= GOBIN=$gobin go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
	echo "installed in $((SECONDS - t))s"
fi
"$goreleaser" --version | grep -i gitversion

step "goreleaser check"
"$goreleaser" check

step "goreleaser release --snapshot --clean"
t=$SECONDS
"$goreleaser" release --snapshot --clean --skip=publish
echo "snapshot release took $((SECONDS - t))s"

step "archives"
shopt -s nullglob
archives=(dist/*.tar.gz dist/*.zip)
ls -l "${archives[@]}" dist/checksums.txt
[ ${#archives[@]} -eq ${#targets[@]} ] || { echo "want ${#targets[@]} archives, got ${#archives[@]}"; exit 1; }
(cd dist && sha256sum --check --strict checksums.txt)

problems=0
for archive in "${archives[@]}"; do
	case $archive in
	*.zip) listing=$(unzip -Z1 "$archive"); bin=tilookup.exe ;;
	*) listing=$(tar -tzf "$archive"); bin=tilookup ;;
	esac
	top=$(basename "$archive"); top=${top%.zip}; top=${top%.tar.gz}
	for want in "$bin" README.md LICENSE \
		completions/tilookup.bash completions/tilookup.zsh completions/tilookup.fish completions/tilookup.ps1 \
		man/man1/tilookup.1 man/man1/tilookup-search.1 man/man1/tilookup-completion-install.1; do
		if ! grep -qx "$top/$want" <<<"$listing"; then
			echo "$archive: $top/$want is missing"
			problems=$((problems + 1))
		fi
	done
	echo "$archive: $(wc -l <<<"$listing") entries"
done
if [ "$problems" -gt 0 ]; then
	echo "first archive's listing:"; tar -tzf "${archives[0]}" 2>/dev/null || unzip -Z1 "${archives[0]}"
	exit 1
fi

step "the linux/amd64 archive, unpacked"
unpacked=$out/unpacked
mkdir -p "$unpacked"
linux=(dist/tilookup_*_linux_amd64.tar.gz)
tar -xzf "${linux[0]}" -C "$unpacked"
dir=$(echo "$unpacked"/tilookup_*_linux_amd64)
"$dir/tilookup" version
json=$("$dir/tilookup" version -o json)
echo "$json"
grep -q '"version":"[0-9][^"]*snapshot' <<<"$json" || { echo "the release binary does not carry the snapshot version"; exit 1; }
grep -q '"commit":"[0-9a-f]\{40\}"' <<<"$json" || { echo "the release binary does not carry the commit"; exit 1; }
cmp "$dir/completions/tilookup.bash" completions/tilookup.bash
if command -v man >/dev/null; then
	page=$(PATH="$dir:$PATH" MANPAGER=cat MANWIDTH=80 man tilookup 2>&1) || { echo "man tilookup failed: $page"; exit 1; }
	grep -q 'tilookup - Look up indicators' <<<"$page" || { echo "man tilookup showed:"; echo "$page" | head -20; exit 1; }
	echo "man tilookup: $(PATH="$dir:$PATH" man -w tilookup)"
else
	echo "man is not installed (not root?): skipping the man check"
fi

echo
echo "release.sh: passed in $((SECONDS - started))s"
