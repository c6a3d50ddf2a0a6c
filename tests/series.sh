# shellcheck shell=bash disable=SC2154,SC2016
# (SC2154: top, tmp and t come from tests/run; SC2016: the bash -c
# scripts are single-quoted on purpose.)
# Sourced by tests/run (uses its t/tf, $top, $tmp): scripts/series and
# scripts/upstream-base on patches/ applied to the cached base, in a clone
# that checks out only what get_maintainer.pl reads (MAINTAINERS, the
# script, the top-level files and empty top-level dirs it looks for); no
# build, no network: the "upstream tarball" is made here from the base
# (KW_CACHE in $tmp), and git's global config is hidden so that only the
# identities set here count.  Then fetch-base on a fake git KERNEL_SRC keeps
# its HEAD, whose id is the base-commit.

sr=$tmp/series-test
s=$sr/linux
mkdir -p "$sr/cache/upstream"
saved_series_env=$(declare -p KW_CACHE KW_PATCHES KERNEL_SRC KW_UPSTREAM_COMMIT GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM \
	GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL SERIES_VERSION SERIES_PREV 2>/dev/null || true)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 KW_CACHE=$sr/cache KW_PATCHES=$top/patches
# The caller's identity and version (make check SERIES_VERSION=2) are not the test's.
unset KERNEL_SRC KW_UPSTREAM_COMMIT GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL \
	SERIES_VERSION SERIES_PREV
sg() { git -C "$s" "$@"; }
# hdr FILE NAME: the mail header NAME of FILE, unfolded (one line).
hdr() { awk -v h="$2:" '/^$/ { exit } /^[ \t]/ { if (on) v = v $0; next }
	{ if (on) exit; if ($1 == h) { on = 1; v = $0 } } END { sub("^" h " *", "", v); gsub(/[ \t]+/, " ", v); print v }' "$1"; }
export -f hdr

git clone -q --shared --no-checkout "$KW_BASE_REPO" "$s"
sg sparse-checkout set --no-cone /MAINTAINERS /COPYING /CREDITS /Kbuild /Makefile /README \
	/.mailmap /.get_maintainer.ignore /scripts/get_maintainer.pl
sg checkout -q main
# The top-level dirs get_maintainer.pl wants to see; git removes them again
# when they are empty after some commands (reset): made before each run.
topdirs() { (cd "$s" && mkdir -p Documentation arch include drivers fs init ipc kernel lib); }
sg config user.name "keyed-wait harness"
sg config user.email keyed-wait@invalid
mapfile -t sp < <(series_patches "$top/patches/series")
if ((${#sp[@]})); then
	sg am -q "${sp[@]/#/$top/patches/}"
else	# an empty series: one patch of our own, to have something to send
	echo "# test" >>"$s/MAINTAINERS"
	sg -c user.name=T -c user.email=t@example.org commit -q -a -m "MAINTAINERS: test" -m "Signed-off-by: T <t@example.org>"
fi
m=$(sg rev-list --count base..HEAD)
subject=$(head -1 "$top/patches/cover-letter.txt")
# The "upstream tarball": the files the series changes, as in base.
mapfile -t touched < <(sg diff --name-only --no-renames --diff-filter=MDT base HEAD)
sg archive --prefix=linux-7.3.4/ base -- "${touched[@]}" COPYING | xz -0 >"$sr/cache/upstream/linux_7.3.4.orig.tar.xz"
up_id=0123456789abcdef0123456789abcdef01234567

# --- identity ---------------------------------------------------------------
t "series: the harness's placeholder identity is refused, one line saying how to set yours" bash -c '
	out=$("$0/scripts/series" "$1/out" "$2" 2>&1) && exit 1
	echo "$out"; [[ $(wc -l <<<"$out") == 1 && $out == *"keyed-wait@invalid"* &&
		$out == *"config user.email"* && $out == *GIT_AUTHOR_EMAIL* && ! -e $1/out ]]' "$top" "$sr" "$s"
t "series: no identity at all is refused" bash -c '
	git -C "$2" config --unset user.name; git -C "$2" config --unset user.email
	out=$("$0/scripts/series" "$1/out" "$2" 2>&1); rc=$?
	git -C "$2" config user.name "keyed-wait harness"; git -C "$2" config user.email keyed-wait@invalid
	echo "$out"; ((rc)) && [[ $out == *"(have: none)"* ]]' "$top" "$sr" "$s"
sg -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m "test: placeholder" \
	-m "Signed-off-by: keyed-wait harness <keyed-wait@invalid>"
t "series: a patch signed off by the placeholder is refused, naming it" bash -c '
	out=$(GIT_AUTHOR_NAME="Jane Tester" GIT_AUTHOR_EMAIL=jane@example.org "$0/scripts/series" "$1/out" "$2" 2>&1) && exit 1
	echo "$out"; [[ $out == *"patch $3 (test: placeholder) has the placeholder"* ]]' "$top" "$sr" "$s" $((m + 1))
sg -c user.name=T -c user.email=t@example.org commit -q --amend --allow-empty -m "test: unsigned"
t "series: a patch without Signed-off-by is refused" bash -c '
	out=$(GIT_AUTHOR_NAME="Jane Tester" GIT_AUTHOR_EMAIL=jane@example.org "$0/scripts/series" "$1/out" "$2" 2>&1) && exit 1
	echo "$out"; [[ $out == *"(test: unsigned) has no Signed-off-by"* ]]' "$top" "$sr" "$s"
sg reset -q --hard HEAD~1
topdirs

# --- v1: an identity from the environment, To/Cc, cover letter, base --------
t "series: v1 with GIT_AUTHOR_NAME/EMAIL (config still the placeholder)" \
	env GIT_AUTHOR_NAME="Jane Tester" GIT_AUTHOR_EMAIL=jane@example.org "$top/scripts/series" "$sr/v1" "$s"
# git format-patch pads the numbers to the width of the count (01/10).
t "series: [PATCH n/$m] subjects, numbered from 1" bash -c '
	i=0; for f in $(cat "$0/series"); do i=$((i + 1)); n=$(printf "%0${#1}d" $i)
		[[ $(hdr "$0/$f" Subject) == "[PATCH $n/$1] "* ]] || { echo "$f: $(hdr "$0/$f" Subject)"; exit 1; }; done
	((i == $1))' "$sr/v1" "$m"
t "series: To: and Cc: on every patch and the cover letter" bash -c '
	for f in "$0"/*.patch; do [[ -n $(hdr "$f" To) && -n $(hdr "$f" Cc) ]] || { echo "$f"; exit 1; }; done'  "$sr/v1"
t "series: the cover letter's To:+Cc: is the union of the patches'" bash -c '
	split() { tr , "\n" | sed "s/^ *//" | grep . | sort -u; }
	all=$(for f in $(cat "$0/series"); do { hdr "$0/$f" To; echo ,; hdr "$0/$f" Cc; } | tr -d "\n" | split; done | sort -u)
	cover=$({ hdr "$0/0000-cover-letter.patch" To; echo ,; hdr "$0/0000-cover-letter.patch" Cc; } | tr -d "\n" | split)
	[[ -n $all ]] && diff <(echo "$all") <(echo "$cover")' "$sr/v1"
t "series: get_maintainer.pl names linux-kernel@vger.kernel.org and a scheduler maintainer" bash -c '
	[[ $(hdr "$0/0000-cover-letter.patch" Cc) == *linux-kernel@vger.kernel.org* &&
	   $(hdr "$0/0000-cover-letter.patch" To) == *peterz@infradead.org* ]]' "$sr/v1"
t "series: cover letter subject is patches/cover-letter.txt's first line" bash -c '
	[[ $(hdr "$0/0000-cover-letter.patch" Subject) == "[PATCH $(printf "%0${#1}d" 0)/$1] $2" ]]' "$sr/v1" "$m" "$subject"
t "series: cover letter: From: and Signed-off-by: the sender; the body; the base in words" bash -c '
	c=$0/0000-cover-letter.patch
	[[ $(hdr "$c" From) == "Jane Tester <jane@example.org>" ]] &&
	grep -qx "Signed-off-by: Jane Tester <jane@example.org>" "$c" &&
	grep -qF "$(sed -n 3p "$1")" "$c" && ! grep -q "SUBJECT HERE\|BLURB HERE" "$c" &&
	tr "\n" " " <"$c" | grep -q "Based on Linux 7.3.4 (Debian .*); the [0-9]* files it changes are identical in upstream v7.3.4\."' \
	"$sr/v1" "$top/patches/cover-letter.txt"
t "series: identical files, but no established upstream commit id -> no base-commit:" \
	bash -c '! grep -q "^base-commit:" "$0"/*.patch' "$sr/v1"
t "series: tag series-v1 = the HEAD it wrote" bash -c '[[ $(git -C "$0" rev-parse series-v1) == $(git -C "$0" rev-parse HEAD) ]]' "$s"

# --- v2: range-diff against tag series-v1, base-commit when established ----
sg -c user.name=T -c user.email=t@example.org commit -q --amend -m "$(sg log -1 --format=%B | sed '1s/$/ (reworded)/')"
topdirs
t "series: v2 (SERIES_VERSION=2, upstream id known)" env GIT_AUTHOR_NAME="Jane Tester" GIT_AUTHOR_EMAIL=jane@example.org \
	SERIES_VERSION=2 KW_UPSTREAM_COMMIT=$up_id "$top/scripts/series" "$sr/v2" "$s"
t "series: [PATCH v2 n/$m] subjects, cover letter [PATCH v2 0/$m]" bash -c '
	i=0; for f in $(cat "$0/series"); do i=$((i + 1)); n=$(printf "%0${#1}d" $i)
		[[ $(hdr "$0/$f" Subject) == "[PATCH v2 $n/$1] "* ]] || { echo "$f"; exit 1; }; done
	((i == $1)) && [[ $(hdr "$0/v2-0000-cover-letter.patch" Subject) == "[PATCH v2 $(printf "%0${#1}d" 0)/$1] "* ]]' "$sr/v2" "$m"
t "series: v2 cover letter has a range-diff against v1: the reworded patch changed, the others equal" bash -c '
	c=$0/v2-0000-cover-letter.patch
	grep -q "^Range-diff against v1:" "$c" || exit 1
	grep -q "^ *$1: *[0-9a-f]* ! *$1: " "$c" && grep -q "^ *+ .* (reworded)$" "$c" || exit 1
	[[ $1 == 1 ]] || grep -q "^ *1: *[0-9a-f]* = *1: " "$c"' "$sr/v2" "$m"
t "series: identical files + established id -> base-commit: that id, last in the cover letter only" bash -c '
	[[ $(tail -1 "$0/v2-0000-cover-letter.patch") == "base-commit: $1" ]] &&
	[[ $(grep -l "^base-commit:" "$0"/*.patch) == "$0/v2-0000-cover-letter.patch" ]]' "$sr/v2" "$up_id"
t "series: the patches' To/Cc do not change between versions" bash -c '
	[[ -s $0/series ]] && [[ $(hdr "$0/$(head -1 "$0/series")" To) == $(hdr "$1/$(head -1 "$1/series")" To) ]]' "$sr/v1" "$sr/v2"

# --- --draft, and a previous version from a directory of patch files --------
t "series --draft -v 3 --prev DIR: no identity needed (placeholder in config)" \
	"$top/scripts/series" --draft -v 3 --prev "$sr/v1" "$sr/draft" "$s"
t "series --draft: range-diff against v1's patch files, no Signed-off-by in the cover letter, no tag" bash -c '
	c=$0/v3-0000-cover-letter.patch
	grep -q "^Range-diff against v2:" "$c" && grep -q "^ *$2: *[0-9a-f]* ! *$2: " "$c" &&
	! grep -q "^Signed-off-by:" "$c" && ! git -C "$1" rev-parse -q --verify series-v3' "$sr/draft" "$s" "$m"
t "series: SERIES_PREV=<no such ref> is refused" bash -c '
	out=$(GIT_AUTHOR_NAME=J GIT_AUTHOR_EMAIL=j@example.org SERIES_PREV=nosuchref "$0/scripts/series" "$1/x" "$2" 2>&1) && exit 1
	echo "$out"; [[ $out == *"SERIES_PREV=nosuchref: no such ref"* ]]' "$top" "$sr" "$s"

# --- upstream-base: a file that differs upstream, a real base commit --------
cp -a "$sr/cache" "$sr/cache2"
rm -f "$sr/cache2/upstream"/cmp-*
mkdir -p "$sr/x"
tar -xJf "$sr/cache2/upstream/linux_7.3.4.orig.tar.xz" -C "$sr/x"
echo "/* upstream differs */" >>"$sr/x/linux-7.3.4/${touched[0]}"
tar -cJf "$sr/cache2/upstream/linux_7.3.4.orig.tar.xz" -C "$sr/x" linux-7.3.4
t "upstream-base: a touched file differs upstream -> no base-commit:, the file named" bash -c '
	out=$(KW_CACHE=$1 KW_UPSTREAM_COMMIT=0123 "$0/scripts/upstream-base" "$2" 2>/dev/null)
	echo "$out"; ! grep -q "^base-commit:" <<<"$out" && tr "\n" " " <<<"$out" | grep -q "1 differ from upstream v7.3.4: $3"' \
	"$top" "$sr/cache2" "$s" "${touched[0]}"
t "upstream-base: the comparison is cached (second run: no tar)" bash -c '
	mkdir -p "$1/notar"; printf "#!/bin/sh\nexit 1\n" >"$1/notar/tar"; chmod +x "$1/notar/tar"
	PATH=$1/notar:$PATH KW_CACHE=$1/cache2 "$0/scripts/upstream-base" "$2" | tr "\n" " " | grep -q "1 differ"' "$top" "$sr" "$s"

# fetch-base on a git KERNEL_SRC keeps its HEAD (shallow): that is the base-commit.
k=$sr/k
mkdir -p "$k/kernel"
printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\nNAME = Fake\n' >"$k/Makefile"
echo "int x;" >"$k/kernel/x.c"
kg() { git -C "$k" -c user.name="Fake Upstream" -c user.email=fake@example.org "$@"; }
kg init -q
kg add -A
kg commit -q -m "Linux 7.3.3"
echo "int y;" >>"$k/kernel/x.c"
kg commit -q -a -m "Linux 7.3.4"
t "fetch-base: a git KERNEL_SRC's HEAD is the base as it is (same id, shallow)" bash -c '
	KW_CACHE=$1/kcache KERNEL_SRC=$2 "$0/scripts/fetch-base" >/dev/null 2>&1 &&
	[[ $(git --git-dir="$1/kcache/base.git" rev-parse base) == $(git -C "$2" rev-parse HEAD) &&
	   -f $1/kcache/base.git/shallow ]]' "$top" "$sr" "$k"
git clone -q "$sr/kcache/base.git" "$sr/kclone"
echo "int z;" >>"$sr/kclone/kernel/x.c"
git -C "$sr/kclone" -c user.name=J -c user.email=j@example.org commit -q -a -m "kernel: z" -m "Signed-off-by: J <j@example.org>"
t "upstream-base: a real base commit is the base-commit, no download" bash -c '
	out=$(KW_CACHE=/nonexistent "$0/scripts/upstream-base" "$1" 2>&1)
	echo "$out"; [[ $(head -1 <<<"$out") == "base-commit: $(git -C "$2" rev-parse HEAD)" ]]' "$top" "$sr/kclone" "$k"
rm -rf "$k/.git"
t "fetch-base: a KERNEL_SRC directory gets the deterministic commit; upstream-base -n: words only" bash -c '
	KW_CACHE=$1/dcache KERNEL_SRC=$2 "$0/scripts/fetch-base" >/dev/null 2>&1 &&
	git clone -q "$1/dcache/base.git" "$1/dclone" &&
	out=$("$0/scripts/upstream-base" -n "$1/dclone") && echo "$out" &&
	[[ $out == "Based on Linux 7.3.4 (an unpacked source tree)." ]]' "$top" "$sr" "$k"

unset KW_CACHE KW_PATCHES GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM
eval "$saved_series_env"
