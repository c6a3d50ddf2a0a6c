# Common settings, sourced by the scripts (not executable on its own).
# shellcheck shell=bash
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

# clone_base DEST [git-clone options]: clone the pristine base (branch main =
# tag base) into DEST.  Local clone: objects are hard-linked, so it is fast.
clone_base() {
	local dest=$1; shift
	[[ -d $KW_BASE_REPO ]] || "$KW_TOP/scripts/fetch-base" >&2
	git clone -q "$@" "$KW_BASE_REPO" "$dest"
	ensure_identity "$dest"
}

# The series applied on a pristine base, kept by scripts/apply-check and
# reused by checkpatch and bisect (branch main; base..main = the series).
SERIES_SRC=$BUILD/series-src

# Number of commits base..HEAD in repo $1.
count_commits() { git -C "$1" rev-list --count base..HEAD; }
