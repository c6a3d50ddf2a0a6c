# shellcheck shell=bash disable=SC2154,SC2016
# (SC2154: top, tmp and t come from tests/run; SC2016: the bash -c and
# wrapper scripts are single-quoted on purpose.)
# Sourced by tests/run (uses its t, $top, $tmp): the dependency check
# (scripts/deps --check, which make runs first) on a machine without flex.
#
# The machine is a synthetic dpkg database (every package of
# scripts/deps.txt and virtme-ng at the pinned version installed, then
# flex removed), read by the real dpkg-query through a PATH wrapper
# (--admindir).  make runs with KERNEL_SRC=/nonexistent and KW_CACHE and
# BUILD in $tmp: anything that got past the check would stop at once.

d=$tmp/deps
mkdir -p "$d/db/updates" "$d/bin" "$d/home"
stanza() { printf 'Package: %s\nStatus: install ok installed\nVersion: %s\nArchitecture: all\nMaintainer: x <x@invalid>\nDescription: x\n\n' "$1" "$2"; }
# drop PKG: remove PKG's stanza from the database.
drop() { awk -v RS= -v ORS='\n\n' -v p="Package: $1" '$0 !~ "^" p "\n"' "$d/db/status" >"$d/s" && mv "$d/s" "$d/db/status"; }
{
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$top/scripts/deps.txt" |
		while read -r p; do stanza "$p" 1.0; done
	stanza virtme-ng "$KW_VNG_VERSION"
} >"$d/db/status"
printf '#!/bin/sh\nexec %s --admindir=%s "$@"\n' "$(command -v dpkg-query)" "$d/db" >"$d/bin/dpkg-query"
chmod +x "$d/bin/dpkg-query"
export DEPS_ENV="PATH=$d/bin:$PATH KW_CACHE=$d/cache BUILD=$d/build KERNEL_SRC=/nonexistent KW_SKIP_DEPS=0"

t "deps --check: everything installed -> silent, exit 0, in under 1 s" bash -c '
	t0=$EPOCHREALTIME
	out=$(env $DEPS_ENV "$0" --check 2>&1) || { echo "$out"; exit 1; }
	t1=$EPOCHREALTIME
	echo "$out ($(bc <<<"$t1 - $t0") s)"
	[[ -z $out ]] && (( $(bc <<<"$t1 - $t0 < 1") ))' "$top/scripts/deps"

drop flex
sudo="sudo "
((EUID == 0)) && sudo=
want="deps: missing flex; run: ${sudo}apt-get install -y --no-install-recommends flex"
t "deps --check without flex: '$want'" \
	bash -c '[[ $(env $DEPS_ENV "$1" --check 2>&1) == "$0" ]]' "$want" "$top/scripts/deps"
t "make tree without flex: that line only (and make's), exit 2, in under 1 s" bash -c '
	t0=$EPOCHREALTIME
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $DEPS_ENV make -s -C "$1" tree 2>&1); rc=$?
	t1=$EPOCHREALTIME
	printf "%s\n(rc %s, %s s)\n" "$out" $rc "$(bc <<<"$t1 - $t0")"
	((rc == 2)) && [[ $(grep -v -E "^make(\[[0-9]+\])?: \*\*\*" <<<"$out") == "$0" ]] &&
		(( $(bc <<<"$t1 - $t0 < 1") ))' "$want" "$top"

drop virtme-ng
t "deps --check without flex and virtme-ng (no cached .deb): '${sudo}make deps'" \
	bash -c '[[ $(env $DEPS_ENV "$1" --check 2>&1) == "$0" ]]' \
	"deps: missing flex virtme-ng=$KW_VNG_VERSION; run: ${sudo}make deps" "$top/scripts/deps"
stanza virtme-ng "$KW_VNG_VERSION" >>"$d/db/status"

# As a user (when root can become one): make deps itself gives the sudo
# line at once and installs nothing.
if ((EUID == 0)) && command -v setpriv >/dev/null; then
	chmod 711 "$tmp"
	chmod -R a+rX "$d"
	chmod a+w "$d/home"
	t "make deps as a user without flex: 'sudo apt-get install -y --no-install-recommends flex'" bash -c '
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL HOME="$2" $DEPS_ENV \
			make -s -C "$1" deps 2>&1) && exit 1
		printf "%s\n" "$out"
		[[ $(head -1 <<<"$out") == "$0" ]]' \
		"deps: missing flex; run: sudo apt-get install -y --no-install-recommends flex" "$top" "$d/home"
fi
unset DEPS_ENV
