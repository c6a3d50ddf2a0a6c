# shellcheck shell=bash disable=SC2154,SC2016
# (SC2154: top, tmp and t come from tests/run; SC2016: the bash -c and
# wrapper scripts are single-quoted on purpose.)
# Sourced by tests/run (uses its t/tf, $top, $tmp): the base cache's stamp,
# bad KERNEL_SRC, and build/linux after interruptions, on a tiny fake
# Linux 7.3 git tree as KERNEL_SRC (KW_CACHE, BUILD, KW_PATCHES in $tmp).

b=$tmp/tb
k=$b/linux-7.3
mkdir -p "$b/patches" "$k/kernel/sched" "$b/notkernel" "$b/linux-6.1"
printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\nNAME = Fake\n' >"$k/Makefile"
for i in $(seq 1 30); do echo "int f$i;" >"$k/kernel/sched/f$i.c"; done
echo "/build/" >"$k/.gitignore"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n' >"$b/linux-6.1/Makefile"
echo hello >"$b/notkernel/README"
g() { git -C "$k" -c user.name=Fake -c user.email=fake@invalid "$@"; }
g init -q
g add -A
g commit -q -m "fake linux 7.3.4"
saved_env=$(declare -p KW_CACHE BUILD KW_PATCHES KERNEL_SRC 2>/dev/null || true)
export KW_CACHE=$b/cache BUILD=$b/build KW_PATCHES=$b/patches KERNEL_SRC=$k
tree=$BUILD/linux

# One patch for the series, made on a scratch clone of the base.
"$top/scripts/fetch-base" >/dev/null 2>&1
git clone -q "$KW_CACHE/base.git" "$b/scratch"
echo "int g;" >>"$b/scratch/kernel/sched/f1.c"
echo "int g4;" >>"$b/scratch/kernel/sched/f4.c"
git -C "$b/scratch" -c user.name=Fake -c user.email=fake@invalid commit -q -a -m "sched: fake change"
"$top/scripts/format-patches" "$b/scratch" "$b/patches"

# --- bad KERNEL_SRC, stamp ------------------------------------------------
t "fetch-base: KERNEL_SRC=/nonexistent -> one line" \
	bash -c "[[ \$(KERNEL_SRC=/nonexistent '$top/scripts/fetch-base' 2>&1) == 'error: KERNEL_SRC=/nonexistent: no such directory' ]]"
t "fetch-base: KERNEL_SRC not a kernel tree -> one line" \
	bash -c "out=\$(KERNEL_SRC='$b/notkernel' '$top/scripts/fetch-base' 2>&1); echo \"\$out\"; [[ \$out == *'is not a kernel source tree'* && \$(wc -l <<<\"\$out\") == 1 ]]"
t "fetch-base: KERNEL_SRC of Linux 6.1 -> one line" \
	bash -c "[[ \$(KERNEL_SRC='$b/linux-6.1' '$top/scripts/fetch-base' 2>&1) == *'holds Linux 6.1.0; the series is based on 7.3' ]]"
t "fetch-base: stamp names KERNEL_SRC, its HEAD and tree" \
	grep -qx "source: KERNEL_SRC $k HEAD $(g rev-parse HEAD) tree $(g rev-parse 'HEAD^{tree}')" "$KW_CACHE/base.git/kw-stamp"
t "fetch-base: same KERNEL_SRC again -> 7.3.4 from the cache" bash -c "[[ \$('$top/scripts/fetch-base') == 7.3.4 ]]"

# build/linux on the fake base, then a new HEAD in KERNEL_SRC.
t "tree: first clone applies the series" bash -c "'$top/scripts/tree' && [[ \$(git -C '$tree' rev-list --count base..HEAD) == 1 ]]"
printf 'kernel/sched/f4.c\n' >"$b/order"
git -C "$tree" config diff.orderFile "$b/order"
t "export-check: a diff.orderFile in the user's config changes nothing" "$top/scripts/export-check"
echo "int h;" >>"$k/kernel/sched/f2.c"
g commit -q -a -m "fake linux 7.3.4, second commit"
t "fetch-base: KERNEL_SRC has a new HEAD -> refused, one line" bash -c "
	out=\$('$top/scripts/fetch-base' 2>&1) && exit 1
	echo \"\$out\"; [[ \$out == *'is asked for; rebuild it with KW_REFRESH=1 make base' && \$(wc -l <<<\"\$out\") == 1 ]]"
t "tree: refused as well (it runs fetch-base first)" bash -c "! '$top/scripts/tree'"
t "fetch-base: KW_REFRESH=1 rebuilds it" env KW_REFRESH=1 "$top/scripts/fetch-base"
t "tree: new base, no work of its own -> cloned again, series applied" bash -c "
	out=\$('$top/scripts/tree') && grep -q 'cached base changed' <<<\"\$out\" &&
	[[ \$(git -C '$tree' rev-parse base) == \$(git --git-dir='$KW_CACHE/base.git' rev-parse base) ]] &&
	[[ \$(git -C '$tree' rev-list --count base..HEAD) == 1 ]]"
sed -i "s/^source: .*/source: Debian $KW_DEB_PKG 7.3.3-1/" "$KW_CACHE/base.git/kw-stamp"
t "fetch-base: cache stamped with another Debian version -> refused, one line" bash -c "
	out=\$(KERNEL_SRC= '$top/scripts/fetch-base' 2>&1) && exit 1
	echo \"\$out\"; [[ \$out == *'is from Debian $KW_DEB_PKG 7.3.3-1, but Debian $KW_DEB_PKG $KW_DEB_VERSION is asked for'* && \$(wc -l <<<\"\$out\") == 1 ]]"
KW_REFRESH=1 "$top/scripts/fetch-base" >/dev/null 2>&1

# --- interrupted first clone ------------------------------------------------
# Ctrl-C while the first 'make tree' applies the series: a git wrapper
# sends SIGINT to scripts/tree when it is asked to 'am', then dies of
# SIGINT itself, as git does when the terminal sends it to both.
# scripts/tree runs with SIGINT at its default: a shell started in the
# background (as a CI runner may start jobs) ignores SIGINT, and a
# non-interactive shell cannot trap a signal ignored on entry, so there
# would be no Ctrl-C to test (a fresh-clone run started that way failed
# here).
rm -rf "$tree"
mkdir -p "$b/intr"
printf '#!/bin/bash\nfor a; do [[ $a == am ]] && { kill -INT $PPID; trap - INT; kill -INT $$; }; done\nexec %s "$@"\n' \
	"$(command -v git)" >"$b/intr/git"
chmod +x "$b/intr/git"
t "tree: Ctrl-C during the first clone leaves no build/linux, no leftovers" bash -c "
	PATH='$b/intr:$PATH' env --default-signal=INT '$top/scripts/tree' && exit 1
	[[ ! -e '$tree' ]] && ! compgen -G '$tree.*'"
t "tree: the next run clones and applies the series" bash -c "
	'$top/scripts/tree' && [[ \$(git -C '$tree' rev-list --count base..HEAD) == 1 ]] && '$top/scripts/export-check'"
rm -rf "$tree"
mkdir -p "$tree.new.12345/junk"
t "tree: a killed first clone's leftovers are removed" bash -c "
	'$top/scripts/tree' && [[ ! -e '$tree.new.12345' && -d '$tree/.git' ]]"

# An older harness's clone interrupted in its checkout: no index, every
# file listed as deleted.
rm -rf "$tree"
git clone -q --no-checkout "$KW_CACHE/base.git" "$tree"
t "export-check: an interrupted clone holds nothing of its own (make clean may remove it)" "$top/scripts/export-check"
t "tree: an interrupted clone is cloned again and patched" bash -c "
	out=\$('$top/scripts/tree') && grep -q 'interrupted clone' <<<\"\$out\" && [[ \$(git -C '$tree' rev-list --count base..HEAD) == 1 ]]"

# A reset interrupted in its checkout (files half reverted), marker left.
: >"$tree/.git/kw-resetting"
echo "half" >>"$tree/kernel/sched/f3.c"
t "tree: an interrupted reset is finished" bash -c "
	out=\$('$top/scripts/tree') && grep -q 'finishing an interrupted reset' <<<\"\$out\" && '$top/scripts/export-check' &&
	[[ ! -e '$tree/.git/kw-resetting' ]]"

# --- capped listing ---------------------------------------------------------
rm "$tree"/kernel/sched/f*.c
t "export-check: 30 deleted files -> 20 lines, then '... 10 more'" bash -c "
	out=\$('$top/scripts/export-check') && exit 1
	echo \"\$out\"; [[ \$(grep -c ' D kernel/sched/f' <<<\"\$out\") == 20 && \$(tail -1 <<<\"\$out\") == '  ... 10 more' ]]"
t "tree: refuses, with the capped listing" bash -c "
	out=\$('$top/scripts/tree' 2>&1) && exit 1
	echo \"\$out\"; [[ \$out == *'... 10 more'* && \$(wc -l <<<\"\$out\") -lt 30 ]]"
git -C "$tree" checkout -q -f

# --- a series whose second patch does not apply -----------------------------
sc=$b/scratch2
git clone -q "$KW_CACHE/base.git" "$sc"
for i in 5 7 6; do
	echo "int p$i;" >>"$sc/kernel/sched/f$i.c"
	git -C "$sc" -c user.name=Fake -c user.email=fake@invalid commit -q -a -m "sched: change f$i"
done
"$top/scripts/format-patches" "$sc" "$b/bad" >/dev/null
sed -i 's/^ int f7;$/ int f7_changed;/' "$b/bad/0002-sched-change-f7.patch"
rm -rf "$b/am" && git clone -q "$KW_CACHE/base.git" "$b/am"
t "apply_series: one line naming patch 2, the repo left at patch 1, no am in progress, no git advice" bash -c "
	out=\$(. '$top/scripts/lib.sh'; ensure_identity '$b/am'; apply_series '$b/am' '$b/bad' 2>&1) && exit 1
	echo \"\$out\"
	[[ \$(tail -1 <<<\"\$out\") == 'error: patch 2 (0002-sched-change-f7.patch) does not apply with git am --3way; '*' is left at the 1 patches before it' ]] &&
	! grep -q -e 'git am --continue' -e 'hint:' -e 'Patch failed at 0001' <<<\"\$out\" &&
	[[ \$(git -C '$b/am' rev-list --count base..HEAD) == 1 && ! -d '$b/am/.git/rebase-apply' ]] &&
	[[ -z \$(git -C '$b/am' status --porcelain) ]]"
t "apply-check: the broken series fails, naming patch 2" bash -c "
	out=\$(KW_PATCHES='$b/bad' '$top/scripts/apply-check' 2>&1) && exit 1
	echo \"\$out\"; grep -q 'error: patch 2 (0002-sched-change-f7.patch) does not apply' <<<\"\$out\""
t "checkpatch: skipped, one line, when the series does not apply" bash -c "
	out=\$(KW_PATCHES='$b/bad' '$top/scripts/checkpatch' 2>&1) && exit 1
	echo \"\$out\"; [[ \$out == 'error: checkpatch: skipped: the series does not apply (see '\''make apply-check'\'')' ]]"
t "apply-check: a series that applies is stamped; the next run reuses it" bash -c "
	KW_PATCHES='$b/patches' '$top/scripts/apply-check' >/dev/null &&
	KW_PATCHES='$b/patches' '$top/scripts/apply-check' | grep -q 'holds them already'"

unset KW_CACHE BUILD KW_PATCHES KERNEL_SRC
eval "$saved_env"
