#!/usr/bin/env bash
# Real shells complete tilookup. A real bash, zsh and fish each load the
# committed script from completions/ (and the one `tilookup completion
# install` puts in place) with tilookup on PATH, and must offer:
#   tilookup se<TAB>                 -> search
#   tilookup search --output <TAB>   -> csv json md misp ndjson stix table (the formats search writes)
#   tilookup --profile <TAB>         -> the profiles of the config file
#   tilookup triage --allow<TAB>     -> described as "... domains in FILE", no backticks (zsh, fish)
# bash is driven through the function it registered for tilookup, with
# COMP_WORDS/COMP_CWORD/COMP_LINE/COMP_POINT set as readline would; zsh runs
# interactively on a pseudo-terminal (zsh/zpty) where Tab is bound to a
# widget that records every candidate passed to compadd; fish answers
# `complete -C`. Runs headless with no stdin; needs root for apt-get (the
# caller has run apt-get update).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

if [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bash-completion zsh fish >/dev/null
fi
for sh in bash zsh fish; do
	command -v "$sh" >/dev/null || { echo "shells.sh: $sh is not installed"; exit 1; }
done
bash_completion=/usr/share/bash-completion/bash_completion
[ -r "$bash_completion" ] || { echo "shells.sh: $bash_completion is missing (package bash-completion)"; exit 1; }
echo "bash $BASH_VERSION, $(zsh --version), $(fish --version)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home"
go build -o "$work/bin/tilookup" ./cmd/tilookup
export PATH="$work/bin:$PATH"
# A home of its own: the install step writes there and no shell reads the
# real user's rc files.
export HOME="$work/home"
unset XDG_CONFIG_HOME XDG_DATA_HOME ZDOTDIR BASH_COMPLETION_USER_DIR TILOOKUP_PROFILE TILOOKUP_OUTPUT
export TERM=xterm
export TILOOKUP_CONFIG="$work/config.yaml"
cat >"$TILOOKUP_CONFIG" <<'EOF'
base_url: https://ti.example.com
profiles:
  staging:
    base_url: https://ti.staging.example/ti
  prod-eu:
    base_url: https://eu.ti.example:8443
EOF

# The checks: the command line typed before Tab, and the candidates wanted.
lines=("tilookup se" "tilookup search --output " "tilookup --profile ")
wants=("search" "csv json md misp ndjson stix table" "prod-eu staging")

failures=0
# check SHELL HOW LINE WANT GOT: GOT is one candidate a line, possibly with a
# description after a tab or spaces; the names, sorted, must equal WANT.
# Each run leaves its stderr in $work/stderr, shown when a check fails
# (bash's compopt, for one, complains outside a readline-driven completion).
check() {
	local got
	got=$(printf '%s\n' "$5" | sed -e 's/\t.*//' -e 's/  .*//' | sed '/^$/d' | LC_ALL=C sort -u | tr '\n' ' ')
	got=${got% }
	if [ "$got" = "$4" ]; then
		printf 'ok    %-5s %-10s %-28s -> %s\n' "$1" "$2" "'$3'" "$got"
	else
		printf 'FAIL  %-5s %-10s %-28s -> want [%s], got [%s]\n' "$1" "$2" "'$3'" "$4" "$got"
		printf '      raw output:\n%s\n' "$5" | sed 's/^/      | /'
		if [ -s "$work/stderr" ]; then
			echo '      stderr:'
			sed 's/^/      | /' "$work/stderr"
		fi
		failures=$((failures + 1))
	fi
}

# A flag's description reads as the help's words: triage's --allowlist
# names its value `FILE` (the help shows "--allowlist FILE"), and the
# description beside the candidate must say FILE, not `FILE` (zsh and fish
# print backticks as they are).
desc_line="tilookup triage --allow"
desc_want="domains in FILE"
# check_desc SHELL HOW GOT: GOT, what the shell shows beside the candidates,
# holds desc_want and no backtick.
check_desc() {
	if [[ $3 == *"$desc_want"* && $3 != *'`'* ]]; then
		printf 'ok    %-5s %-10s %-28s -> described as ...%s...\n' "$1" "$2" "'$desc_line'" "$desc_want"
	else
		printf 'FAIL  %-5s %-10s %-28s -> want a description with [%s] and no backtick\n' "$1" "$2" "'$desc_line'" "$desc_want"
		printf '      shown:\n%s\n' "$3" | sed 's/^/      | /'
		failures=$((failures + 1))
	fi
}

# install puts the same bytes in place as the committed scripts, or the
# committed ones are stale.
tilookup completion install --shell bash >/dev/null
tilookup completion install --shell zsh >/dev/null
tilookup completion install --shell fish >/dev/null
installed_bash=$HOME/.local/share/bash-completion/completions/tilookup
installed_zsh=$HOME/.zsh/completions/_tilookup
installed_fish=$HOME/.config/fish/completions/tilookup.fish
cmp "$installed_bash" completions/tilookup.bash
cmp "$installed_zsh" completions/tilookup.zsh
cmp "$installed_fish" completions/tilookup.fish

# ---- bash
# bash_run LOAD LINE: LOAD is "source" (the committed script) or "loader"
# (bash-completion finds the installed one on demand, as in a new shell).
bash_run() {
	timeout 60 bash --norc --noprofile -c '
		set -u
		source "$1"
		if [ "$2" = source ]; then
			source "$3"
		else
			# _comp_load from bash-completion 2.12 on, __load_completion before.
			if declare -F _comp_load >/dev/null; then load=_comp_load; else load=__load_completion; fi
			"$load" tilookup || { echo "bash-completion did not find the installed script"; exit 1; }
		fi
		spec=$(complete -p tilookup) || exit 1
		fn=$(sed -E "s/.* -F ([^ ]+) .*/\1/" <<<"$spec")
		line=$4
		read -ra COMP_WORDS <<<"$line"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line} COMP_TYPE=9 COMP_KEY=9
		COMPREPLY=()
		"$fn" tilookup "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$bash_completion" "$1" "$repo/completions/tilookup.bash" "$2" </dev/null 2>"$work/stderr"
}
for i in "${!lines[@]}"; do
	check bash source "${lines[i]}" "${wants[i]}" "$(bash_run source "${lines[i]}" || true)"
	check bash installed "${lines[i]}" "${wants[i]}" "$(bash_run loader "${lines[i]}" || true)"
done

# ---- zsh
# The interactive child: compinit over an fpath holding the installed
# _tilookup, and Tab bound to a widget that completes, records what compadd
# was given into $CAPTURE, ends the record with a marker and clears the line.
zdot=$work/zdot
mkdir -p "$zdot"
cat >"$zdot/.zshrc" <<'EOF'
PS1='READY> '
unsetopt zle_bracketed_paste 2>/dev/null
fpath=(~/.zsh/completions $fpath)
autoload -Uz compinit && compinit -u -d "$ZDOTDIR/.zcompdump"
compadd() {
	# Calls that only fill the caller's arrays (-O, -A, -D) add nothing.
	if (( ${@[(I)-[OAD]*]} )); then
		builtin compadd "$@"
		return
	fi
	local -a __got
	builtin compadd -O __got "$@"
	(( ${#__got} )) && print -rl -- $__got >>"$CAPTURE"
	# What zsh shows beside each candidate: the array named after -d.
	local i
	for (( i = 1; i < $#; i++ )); do
		[[ ${@[i]} == -d ]] && print -rl -- "${(@P)${@[i+1]}}" >>"$CAPTURE.desc"
	done
	builtin compadd "$@"
}
capture-complete() {
	zle complete-word
	print -r -- '<<done>>' >>"$CAPTURE"
	BUFFER= CURSOR=0
}
zle -N capture-complete
bindkey '^I' capture-complete
EOF
cat >"$work/drive.zsh" <<'EOF'
# drive.zsh LINE: types LINE and Tab into an interactive zsh on a
# pseudo-terminal and prints what the completion offered.
zmodload zsh/zpty || exit 1
: >|"$CAPTURE"
zpty child zsh -d -i
zpty -r -m child out '*READY> *' || { print "zsh: no prompt"; exit 1 }
zpty -w -n child "$1"$'\t'
for i in {1..300}; do
	grep -q '^<<done>>$' "$CAPTURE" 2>/dev/null && break
	while zpty -r -t child out; do :; done
	sleep 0.1
done
zpty -d child
grep -q '^<<done>>$' "$CAPTURE" || { print "zsh: the completion widget never finished"; exit 1 }
grep -v '^<<done>>$' "$CAPTURE"
EOF
zsh_run() {
	: >|"$work/zsh-capture.desc"
	ZDOTDIR=$zdot CAPTURE=$work/zsh-capture timeout 60 zsh -f "$work/drive.zsh" "$1" </dev/null 2>"$work/stderr"
}
for i in "${!lines[@]}"; do
	check zsh installed "${lines[i]}" "${wants[i]}" "$(zsh_run "${lines[i]}" || true)"
done
zsh_run "$desc_line" >/dev/null || true
check_desc zsh installed "$(cat "$work/zsh-capture.desc")"

# ---- fish
fish_run() {
	if [ "$1" = source ]; then
		timeout 60 fish -c 'source $argv[1]; complete -C $argv[2]' "$repo/completions/tilookup.fish" "$2" </dev/null 2>"$work/stderr"
	else
		# fish finds ~/.config/fish/completions/tilookup.fish by itself.
		timeout 60 fish -c 'complete -C $argv[1]' "$2" </dev/null 2>"$work/stderr"
	fi
}
for i in "${!lines[@]}"; do
	check fish source "${lines[i]}" "${wants[i]}" "$(fish_run source "${lines[i]}" || true)"
	check fish installed "${lines[i]}" "${wants[i]}" "$(fish_run installed "${lines[i]}" || true)"
done
check_desc fish source "$(fish_run source "$desc_line" || true)"
check_desc fish installed "$(fish_run installed "$desc_line" || true)"

if [ "$failures" -gt 0 ]; then
	echo "shells.sh: $failures completion check(s) failed"
	exit 1
fi
echo "shells.sh: every shell completed as expected"
