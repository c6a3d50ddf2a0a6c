# Common settings, sourced by the scripts (not executable on its own).
# shellcheck shell=bash
# shellcheck disable=SC2034 # settings used by the scripts that source this file
KW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KW_CACHE=${KW_CACHE:-$HOME/.cache/keyed-wait}
# Suites when KUNITCONFIGS is empty: those of these (relative to
# build/linux) that exist; see scripts/kunit.
KW_DEFAULT_KUNITCONFIGS=${KW_DEFAULT_KUNITCONFIGS:-lib/tests/keyed_wait.kunitconfig drivers/block/zram/.kunitconfig}
# The same for the KCSAN run (x86_64): the series' KCSAN kunitconfig.
KW_KCSAN_KUNITCONFIGS=${KW_KCSAN_KUNITCONFIGS:-lib/tests/keyed_wait_kcsan.kunitconfig drivers/block/zram/.kunitconfig}
# The patch queue (KW_PATCHES overrides, for the harness self-tests).
KW_PATCHES=$(realpath -m "${KW_PATCHES:-$KW_TOP/patches}")
KW_BASE_REPO=$KW_CACHE/base.git
KW_DEB_PKG=linux-source-7.3
KW_DEB_VERSION=7.3.4-1~bpo13+1
KW_DEB_SUITE=trixie-backports
# git tree id of that package's source (Debian .gitignore block dropped): a
# KERNEL_SRC with exactly this content gets the same base commit id.
KW_DEB_TREE=f2d01b1320606f67a88ce2b2a990f311d9455117
# Upstream of the Debian base (scripts/upstream-base): the "linux" source
# package of KW_DEB_VERSION carries Linux's tarball as
# linux_<upstream>.orig.tar.xz; the files the series changes are compared
# with it.  KW_UPSTREAM_COMMIT: the linux-stable commit of that release
# (v7.3.4), set only with the public source that establishes it; empty: no
# base-commit: trailer for the Debian base, the cover letter says the base
# in words.  2026-12-01: not established (searched: kernel.org
# ChangeLog-7.3.4, stable tag v7.3.4, "Linux 7.3.4"; not found), and the
# mirror answered 404 for linux_7.3.4.orig.tar.xz (Sources: sha256
# 9894ebada187044287613061502d9131dfd600ea4cd03f7028541d7cf44000df,
# 165838432 bytes).  An environment value wins (tests/series.sh).
KW_DEB_SRC=linux
KW_UPSTREAM_COMMIT=${KW_UPSTREAM_COMMIT-}
# virtme-ng (vng), pinned: installed by scripts/deps (make deps) only, from
# this Debian suite of the machine's mirror (bookworm has none; trixie has
# 1.35-1), its .deb cached in KW_CACHE.
KW_VNG_VERSION=1.41-1
KW_VNG_SUITE=sid
# mdadm for the md/raid5 kselftest (scripts/fetch-mdadm), from bookworm
KW_MDADM_VERSION=4.2-5
# The series' kselftests that run in the VM (scripts/vm-selftest), as
# NAME=COLLECTION:SCRIPT; the collections' own config files are merged into
# the VM kernel's config (scripts/vm-build).
KW_VM_SELFTESTS=(squashfs=filesystems/squashfs:squashfs_test.sh zram=zram:zram_borrow.sh
	raid5=drivers/md:raid5_stripe_cache.sh)
# Absolute: scripts cd into trees and pass paths to git -C and kunit.py.
BUILD=$(realpath -m "${BUILD:-$KW_TOP/build}")
TREE=$BUILD/linux
JOBS=${JOBS:-$(nproc)}
# Every build here compiles sources under KW_TOP into dirs under KW_TOP:
# with paths made relative to it, ccache hits across clones (CI's fresh
# clone reuses what a developer's checkout compiled).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KW_TOP}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
# The C compiler of every kernel build here (CC= and HOSTCC=).
KW_CC=gcc
command -v ccache >/dev/null && KW_CC="ccache gcc"

die() { echo "error: $*" >&2; exit 1; }
banner() { printf '\n===== %s =====\n' "$*"; }

# Patch file names from patches/series (or file $1), in order; comments
# and blank lines skipped.
series_patches() {
	local f=${1:-$KW_PATCHES/series}
	[[ -f $f ]] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$f"
}

# Make sure git can commit in repo $1 (git am/commit need an identity).
ensure_identity() {
	git -C "$1" config user.name >/dev/null || git -C "$1" config user.name "keyed-wait harness"
	git -C "$1" config user.email >/dev/null || git -C "$1" config user.email "keyed-wait@invalid"
}

# fixed_identity NAME EMAIL DATE: commits made by this shell from now on
# have this author and committer and this date, so the same inputs give
# the same commit ids on every machine (the base, the bench variants).
fixed_identity() {
	export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 GIT_AUTHOR_DATE=$3
	export GIT_COMMITTER_NAME=$1 GIT_COMMITTER_EMAIL=$2 GIT_COMMITTER_DATE=$3
}

# need_disk DIR MB WHAT: exit with one line unless DIR's file system (DIR
# or its nearest existing parent) has MB MiB free for WHAT.
need_disk() {
	local dir=$1 mb=$2 free
	until [[ -d $dir ]]; do dir=$(dirname "$dir"); done
	free=$(df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1024) }')
	((free >= mb)) || die "not enough disk space: $3 needs about $(gb "$mb") GB in $dir, which has $(gb "$free") GB free (point KW_CACHE or BUILD elsewhere)"
}
gb() { awk -v m="$1" 'BEGIN { printf "%.1f", m / 1024 }'; }

# clone_base DEST [git-clone options]: clone the pristine base (branch main =
# tag base) into DEST (absent or empty).  Local clone: objects are
# hard-linked, so it is fast; the checkout is about 1.8 GB.
clone_base() {
	local dest=$1; shift
	[[ -d $KW_BASE_REPO ]] || "$KW_TOP/scripts/fetch-base" >&2
	need_disk "$dest" 2000 "a checkout of the base"
	git clone -q "$@" "$KW_BASE_REPO" "$dest"
	ensure_identity "$dest"
}

# The series applied on a pristine base, kept by scripts/apply-check and
# reused by checkpatch and bisect (branch main; base..main = the series).
SERIES_SRC=$BUILD/series-src

# apply_series REPO [DIR]: git am --3way the patches listed in DIR/series
# (default KW_PATCHES) onto REPO's HEAD in one git am run, so that git's
# "Patch failed at NNNN" counts from the first patch.  On failure REPO is
# left at the patches before the one that failed, with nothing in progress
# (am --quit, reset --hard: the callers own REPO's work tree), git's output
# is shown without its "resolve, then git am --continue" advice, and it
# returns 1 after one line naming the patch.
apply_series() {
	local repo=$1 dir=${2:-$KW_PATCHES} p files=() err next rc=0
	while read -r p; do
		[[ -f $dir/$p ]] || { echo "error: $dir/series names a missing file: $p" >&2; return 1; }
		files+=("$dir/$p")
	done < <(series_patches "$dir/series")
	((${#files[@]})) || return 0
	# git's messages go to a file, not through $(...): git stays a child
	# of the calling script, as it would be without the filter.
	err=$(mktemp)
	git -C "$repo" am -q --3way "${files[@]}" 2>"$err" >&2 || rc=$?
	if ((rc)); then
		next=$(cat "$(git -C "$repo" rev-parse --absolute-git-dir)/rebase-apply/next" 2>/dev/null || echo 0)
		git -C "$repo" am --quit >/dev/null 2>&1 || true
		git -C "$repo" reset -q --hard
		grep -v -E '^(hint: |When you have resolved|If you prefer to skip|To restore the original|Use .git am --show-current-patch)' "$err" >&2 || true
		rm -f "$err"
		if ((next == 0)); then
			echo "error: git am could not start on $repo (exit $rc; see above)" >&2
			return 1
		fi
		p=${files[next - 1]}
		echo "error: patch $next (${p##*/}) does not apply with git am --3way; $repo is left at the $((next - 1)) patches before it" >&2
		return 1
	fi
	rm -f "$err"
}

# series_inputs: a hash of what build/series-src is made of: the base
# commit and the patches listed in patches/series, names and bytes.
series_inputs() {
	local p
	{ git --git-dir="$KW_BASE_REPO" rev-parse base
	  series_patches "$KW_PATCHES/series" | while read -r p; do
		echo "$p"; cat "$KW_PATCHES/$p" 2>/dev/null || echo missing
	  done; } | sha256sum | cut -d' ' -f1
}

# need_series_src WHO: make sure build/series-src holds base + patches/
# (scripts/apply-check, which keeps a stamp so that the stages after it
# (checkpatch, docs, bisect) do not apply the series again); exit 1 with
# one line if it does not apply, or with apply-check's last line if it
# failed otherwise (disk space, no base).
need_series_src() {
	local out
	out=$("$KW_TOP/scripts/apply-check" 2>&1) && return 0
	grep -q 'does not apply' <<<"$out" &&
		die "$1: skipped: the series does not apply (see 'make apply-check')"
	die "$1: apply-check failed: $(tail -n 1 <<<"$out")"
}

# config_unmet FRAGMENT CONFIG: print one line per option FRAGMENT asks for
# that CONFIG (a .config made with it) does not have, e.g. a symbol
# the tree lacks, one without a prompt, or one the architecture cannot set.
config_unmet() {
	local l s
	grep -E '^(CONFIG_[A-Z0-9_]+=.*|# CONFIG_[A-Z0-9_]+ is not set)$' "$1" | while read -r l; do
		if [[ $l == \#* ]]; then
			s=${l#\# }; s=${s%% *}
			grep -q "^$s=" "$2" && echo "$s still set"
		else
			grep -qxF "$l" "$2" || echo "$l not applied ($(grep -E "^(# )?${l%%=*}[= ]" "$2" || echo absent))"
		fi
	done || true
}

# mk_version: "7.3.4" from a top-level kernel Makefile on stdin, or nothing.
mk_version() {
	awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3}
	     /^SUBLEVEL =/{if (!done && v != "" && p != "") print v "." p "." $3; done = 1}'
}

# Number of commits base..HEAD in repo $1.
count_commits() { git -C "$1" rev-list --count base..HEAD; }

# What a passing run of every KUnit case depends on besides the kind (each
# kind has its own build dir): build/linux's commit, the suites chosen, the
# accelerator and timeout, and the harness files that build, run and judge
# it.  scripts/kunit leaves it in the build dir as "passed" after a run of
# every case with no extra kernel arguments; scripts/mutants compares it
# before a baseline.
kunit_stamp() {
	git -C "$TREE" rev-parse HEAD
	printf '%s|' "${KUNITCONFIGS:-}" "$KW_DEFAULT_KUNITCONFIGS" \
		"$KW_KCSAN_KUNITCONFIGS" "${QEMU_ACCEL:-}" "${QEMU_TCG_THREAD:-}" \
		"${KUNIT_TIMEOUT:-}" "$KW_CC"
	echo
	local f
	for f in "$KW_TOP"/configs/* "$KW_TOP"/scripts/{kunit,lib.sh,scan-console} \
		 "$KW_TOP"/scripts/qemu-tcg/*; do
		[[ -f $f ]] || continue
		sha1sum <"$f"
	done | sha1sum
}
