#!/usr/bin/env bash
# The release build, offline: every target compiles (each OS has its own
# keyring code), the pinned goreleaser accepts .goreleaser.yaml, and a
# snapshot release, signed with a key made for the run, produces six archives
# (each holding the binary, README.md, LICENSE, the four completion scripts
# and the man pages), .deb, .rpm and .apk packages for linux amd64 and arm64,
# a CycloneDX SBOM per archive, a Homebrew cask and a Scoop manifest, and a
# signed checksums.txt listing them all. Then they are used as a user would:
#   - the linux/amd64 archive's binary reports the snapshot version, and
#     `man tilookup` finds the page once the unpacked directory is on PATH;
#   - the .deb unpacked into a scratch root: its binary runs, `man -l` renders
#     its page, and a bash that knows only that root's system completion
#     directory completes `tilookup se<TAB>`; `rpm -qpl` and the .apk list the
#     same files;
#   - each SBOM parses and names cobra and viper at go.mod's versions;
#   - `ssh-keygen -Y verify`, the README's command, accepts the signature and
#     refuses a changed checksums.txt;
#   - a second snapshot build gives the same checksums.txt (reproducible).
# Needs root for apt-get (the caller has run apt-get update); leaves its
# output in dist/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

# The newest goreleaser v2 whose module builds with this repo's Go (1.26)
# from the Go module proxy; bump deliberately.
GORELEASER_VERSION=v2.16.0
# The SBOM tool goreleaser runs. cyclonedx-gomod rather than syft: it reads
# the module list from the binary's build info (what ships, nothing guessed),
# omits the serial number and timestamp on request (-noserial -notimestamp),
# and builds from source in a fraction of syft's time.
CYCLONEDX_GOMOD_VERSION=v1.10.0
targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)

step() { printf '\n-- %s\n' "$*"; }
started=$SECONDS

if [ "$(id -u)" = 0 ]; then
	# unzip for the Windows archives, man-db for the man checks, rpm for
	# `rpm -qpl`, jq for the SBOMs and the Scoop manifest, bash-completion
	# for the packaged completion, ssh-keygen to sign and verify.
	missing=()
	command -v unzip >/dev/null || missing+=(unzip)
	command -v man >/dev/null || missing+=(man-db)
	command -v rpm >/dev/null || missing+=(rpm)
	command -v jq >/dev/null || missing+=(jq)
	[ -r /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
	command -v ssh-keygen >/dev/null || missing+=(openssh-client)
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

gobin=$(go env GOPATH)/bin
# install_tool NAME MODULE PACKAGE VERSION [pure]: go install PACKAGE@VERSION
# into $gobin unless the binary there was built from MODULE at VERSION.
# "pure" builds it with -trimpath and without cgo, so that its bytes depend
# on neither the module cache's path nor the C toolchain.
install_tool() {
	local name=$1 module=$2 package=$3 version=$4 pure=${5:-} t=$SECONDS
	step "$name $version"
	local info=
	[ -x "$gobin/$name" ] && info=$(go version -m "$gobin/$name")
	if grep -Eq "^[[:space:]]+mod[[:space:]]+$module[[:space:]]+$version[[:space:]]" <<<"$info" &&
		{ [ -z "$pure" ] || { grep -q -- '-trimpath=true' <<<"$info" && grep -q 'CGO_ENABLED=0' <<<"$info"; }; }; then
		echo "cached: $gobin/$name"
		return
	fi
	# GOFLAGS from the caller (-mod=mod) does not apply to installing a
	# module at a version.
	local env=(GOFLAGS=)
	[ -z "$pure" ] || env=(GOFLAGS=-trimpath CGO_ENABLED=0)
	env "${env[@]}" GOBIN="$gobin" go install "$package@$version"
	echo "installed in $((SECONDS - t))s"
}
install_tool goreleaser github.com/goreleaser/goreleaser/v2 github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION"
# pure: each SBOM records the hash of the tool that wrote it.
install_tool cyclonedx-gomod github.com/CycloneDX/cyclonedx-gomod github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod "$CYCLONEDX_GOMOD_VERSION" pure
goreleaser=$gobin/goreleaser
"$goreleaser" --version | grep -i gitversion
# goreleaser runs the SBOM tool by name.
export PATH="$gobin:$PATH"

step "goreleaser check"
"$goreleaser" check

step "a signing key for this run"
# A release signs with the project's key; this one exists for the run only.
ssh-keygen -q -t ed25519 -N '' -C tilookup-ci -f "$out/signing-key"
export RELEASE_SIGNING_KEY=$out/signing-key
# The allowed-signers file a user keeps beside the release, as README.md says.
printf 'tilookup-release namespaces="file" %s\n' "$(cut -d' ' -f1,2 "$out/signing-key.pub")" >"$out/allowed_signers"

# goreleaser reads the commit, its date and the tag from git, but gives up on
# all of them (and falls back to "none" and the clock) in a repository with
# no remote, such as a local clone's worktree. Such a run gets the project's
# URL from the environment; the repository's config is left alone.
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/tilookup/tilookup.git
fi
snapshot() {
	local t=$SECONDS
	"$goreleaser" release --snapshot --clean --skip=publish
	echo "snapshot release took $((SECONDS - t))s"
}
step "goreleaser release --snapshot --clean (first build)"
snapshot
cp dist/checksums.txt "$out/checksums.first"
step "goreleaser release --snapshot --clean (second build, same commit)"
snapshot
step "reproducible: both builds give the same checksums.txt"
if ! diff "$out/checksums.first" dist/checksums.txt; then
	echo "two builds of one commit differ (< first, > second)"
	exit 1
fi
echo "identical: $(wc -l <dist/checksums.txt) files"

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

step "packages"
debs=(dist/*.deb) rpms=(dist/*.rpm) apks=(dist/*.apk)
ls -l "${debs[@]}" "${rpms[@]}" "${apks[@]}"
for kind in deb rpm apk; do
	n=$(find dist -maxdepth 1 -name "*.$kind" | wc -l)
	[ "$n" -eq 2 ] || { echo "want a .$kind for linux amd64 and arm64, got $n"; exit 1; }
done

# The files the packages must hold: the binary, every committed man page, the
# three completions and the license. zsh's directory is the distribution's
# own, so each format is given its own.
want_files() {
	local zsh=$1
	{
		echo /usr/bin/tilookup
		for page in docs/man/*.1; do echo "/usr/share/man/man1/${page##*/}"; done
		echo /usr/share/bash-completion/completions/tilookup
		echo "$zsh/_tilookup"
		echo /usr/share/fish/vendor_completions.d/tilookup.fish
		echo /usr/share/doc/tilookup/LICENSE
	} | LC_ALL=C sort
}
# same_files WHAT WANT GOT: the listings, one path a line, are equal.
same_files() {
	if [ "$2" != "$3" ]; then
		echo "$1 holds other files than wanted (< want, > got):"
		diff <(echo "$2") <(echo "$3") || true
		exit 1
	fi
	echo "$1: $(wc -l <<<"$3") files, as wanted"
}
deb=(dist/tilookup_*_amd64.deb)
deb_files=$(dpkg-deb -c "${deb[0]}" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | LC_ALL=C sort)
same_files "${deb[0]}" "$(want_files /usr/share/zsh/vendor-completions)" "$deb_files"
for rpm in "${rpms[@]}"; do
	same_files "$rpm" "$(want_files /usr/share/zsh/site-functions)" "$(rpm -qpl "$rpm" 2>/dev/null | LC_ALL=C sort)"
done
for apk in "${apks[@]}"; do
	# An .apk is gzip streams one after another: signature, control, data.
	apk_files=$(tar -tzf "$apk" --ignore-zeros 2>/dev/null | grep -v -e '^\.' -e '/$' | sed 's|^|/|' | LC_ALL=C sort)
	same_files "$apk" "$(want_files /usr/share/zsh/site-functions)" "$apk_files"
done
rpm -qpi "${rpms[0]}" 2>/dev/null | grep -E '^(Name|Version|Release|Architecture|License|Build Date|Build Host) '

step "the .deb in a scratch root"
root=$out/root
dpkg-deb -x "${deb[0]}" "$root"
"$root/usr/bin/tilookup" version
json=$("$root/usr/bin/tilookup" version -o json)
grep -q '"version":"[0-9][^"]*snapshot' <<<"$json" || { echo "the packaged binary does not carry the snapshot version: $json"; exit 1; }
if command -v man >/dev/null; then
	page=$(MANPAGER=cat MANWIDTH=80 man -l "$root/usr/share/man/man1/tilookup.1" 2>&1) || { echo "man -l failed: $page"; exit 1; }
	grep -q 'tilookup - Look up indicators' <<<"$page" || { echo "man -l showed:"; echo "$page" | head -20; exit 1; }
	echo "man -l renders tilookup.1 ($(wc -l <<<"$page") lines)"
else
	echo "man is not installed (not root?): skipping the man check"
fi
# bash-completion loads a command's completion on demand from
# $XDG_DATA_DIRS/bash-completion/completions: pointed at the scratch root
# alone (and an empty home), it can only find the packaged file.
bash_completion=/usr/share/bash-completion/bash_completion
[ ! -e /usr/share/bash-completion/completions/tilookup ] || { echo "this machine has tilookup's completion installed: the check would not prove the package's"; exit 1; }
mkdir -p "$out/home"
got=$(env -u BASH_COMPLETION_USER_DIR -u XDG_DATA_HOME HOME="$out/home" XDG_DATA_DIRS="$root/usr/share" PATH="$root/usr/bin:$PATH" \
	timeout 60 bash --norc --noprofile -c '
		set -u
		source "$1"
		# _comp_load from bash-completion 2.12 on, __load_completion before.
		if declare -F _comp_load >/dev/null; then load=_comp_load; else load=__load_completion; fi
		"$load" tilookup || { echo "bash-completion did not find the packaged script"; exit 1; }
		fn=$(complete -p tilookup | sed -E "s/.* -F ([^ ]+) .*/\1/")
		COMP_WORDS=(tilookup se) COMP_CWORD=1 COMP_LINE="tilookup se" COMP_POINT=11 COMP_TYPE=9 COMP_KEY=9
		COMPREPLY=()
		"$fn" tilookup se tilookup
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$bash_completion" </dev/null 2>"$out/bash-stderr") || { echo "bash completion failed: $got"; cat "$out/bash-stderr"; exit 1; }
got=$(sed -e 's/[[:space:]].*//' <<<"$got" | sed '/^$/d' | tr '\n' ' ')
# (bash's compopt complains outside a readline-driven completion: its stderr
# is shown only when the check fails.)
[ "$got" = "search " ] || { echo "tilookup se<TAB> offered [$got], want [search]"; cat "$out/bash-stderr"; exit 1; }
echo "bash: tilookup se<TAB> -> search"

step "SBOMs"
# cobra and viper at the versions go.mod selects, in every SBOM.
cobra=$(go list -m -f '{{.Version}}' github.com/spf13/cobra)
viper=$(go list -m -f '{{.Version}}' github.com/spf13/viper)
sboms=(dist/*.cdx.json)
[ ${#sboms[@]} -eq ${#targets[@]} ] || { echo "want ${#targets[@]} SBOMs, got ${#sboms[@]}"; exit 1; }
for sbom in "${sboms[@]}"; do
	got=$(jq -r '.bomFormat + " " + .specVersion + ": " + ([.components[] | select(.name == "github.com/spf13/cobra" or .name == "github.com/spf13/viper") | .name + "@" + .version] | sort | join(" "))' "$sbom")
	want="CycloneDX 1.6: github.com/spf13/cobra@$cobra github.com/spf13/viper@$viper"
	[ "$got" = "$want" ] || { echo "$sbom: got [$got], want [$want]"; exit 1; }
	grep -q " ${sbom#dist/}\$" dist/checksums.txt || { echo "$sbom is not in checksums.txt"; exit 1; }
	echo "$sbom: $(jq '.components | length' "$sbom") modules; $got"
done

step "signature"
verify() { ssh-keygen -Y verify -f "$out/allowed_signers" -I tilookup-release -n file -s dist/checksums.txt.sig <"$1"; }
verify dist/checksums.txt
sed '1s/^./0/' dist/checksums.txt >"$out/tampered.txt"
cmp -s dist/checksums.txt "$out/tampered.txt" && sed -i '1s/^./1/' "$out/tampered.txt"
if verify "$out/tampered.txt" >/dev/null 2>&1; then
	echo "a changed checksums.txt verified"; exit 1
fi
echo "a changed checksums.txt is refused"

step "Homebrew cask and Scoop manifest (generated, not published)"
cask=dist/homebrew/Casks/tilookup.rb
scoop=dist/scoop/tilookup.json
ls -l "$cask" "$scoop"
# Each names the archives of checksums.txt by their sums.
for target in darwin_amd64 darwin_arm64 linux_amd64 linux_arm64; do
	sum=$(awk -v t="_$target.tar.gz" 'index($2, t) { print $1 }' dist/checksums.txt)
	grep -q "sha256 \"$sum\"" "$cask" || { echo "$cask lacks the $target archive's sum $sum"; exit 1; }
done
for arch in 64bit:amd64 arm64:arm64; do
	sum=$(awk -v t="_windows_${arch#*:}.zip" 'index($2, t) { print $1 }' dist/checksums.txt)
	got=$(jq -r --arg a "${arch%:*}" '.architecture[$a].hash' "$scoop")
	[ "$got" = "$sum" ] || { echo "$scoop: ${arch%:*} hash $got, want $sum"; exit 1; }
done
echo "the cask and the manifest name the archives' sums"
echo
echo "release.sh: passed in $((SECONDS - started))s"
