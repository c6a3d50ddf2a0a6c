# Common settings, sourced by the scripts (not executable on its own).
# shellcheck shell=bash
# shellcheck disable=SC2034 # settings used by the scripts that source this file
KW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KW_CACHE=${KW_CACHE:-$HOME/.cache/keyed-wait}
# Suites when KUNITCONFIGS is empty: those of these (relative to
# build/linux) that exist; see scripts/kunit.
KW_DEFAULT_KUNITCONFIGS=${KW_DEFAULT_KUNITCONFIGS:-lib/tests/keyed_wait.kunitconfig drivers/block/zram/.kunitconfig}
# The patch queue (KW_PATCHES overrides, for the harness self-tests).
KW_PATCHES=${KW_PATCHES:-$KW_TOP/patches}
KW_BASE_REPO=$KW_CACHE/base.git
KW_DEB_PKG=linux-source-7.3
KW_DEB_VERSION=7.3.4-1~bpo13+1
KW_DEB_SUITE=trixie-backports
# git tree id of that package's source (Debian .gitignore block dropped): a
# KERNEL_SRC with exactly this content gets the same base commit id.
KW_DEB_TREE=f2d01b1320606f67a88ce2b2a990f311d9455117
# virtme-ng (vng), pinned: installed by scripts/deps (make deps) only, from
# this Debian suite of the machine's mirror (bookworm has none; trixie has
# 1.35-1), its .deb cached in KW_CACHE.
KW_VNG_VERSION=1.41-1
KW_VNG_SUITE=sid
BUILD=${BUILD:-$KW_TOP/build}
TREE=$BUILD/linux
JOBS=${JOBS:-$(nproc)}
# Every build here compiles sources under KW_TOP into dirs under KW_TOP:
# with paths made relative to it, ccache hits across clones (CI's fresh
# clone reuses what a developer's checkout compiled).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KW_TOP}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}

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

# Number of commits base..HEAD in repo $1.
count_commits() { git -C "$1" rev-list --count base..HEAD; }
