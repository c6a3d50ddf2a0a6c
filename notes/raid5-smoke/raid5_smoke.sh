#!/bin/bash
# raid5_smoke.sh: smoke test of the md/raid5 stripe cache waits (the
# keyed_wait draft, notes/raid5-keyed-wait-draft.patch) in a throwaway VM.
#
# Runs as root in the guest (see README.md beside it for the commands).
# It creates RAM disks and an md array and writes over them: it refuses to
# run outside a virtme-ng guest unless R5_FORCE=1.
#
# Setup: R5_NDEV (4) brd RAM disks of 64 MiB (built-in brd, created on
# demand with mknod if fewer exist; modprobe brd if it is a module; else
# loop devices on a private tmpfs), plus one spare for the reshape phase;
# RAID5 with $MDADM --create --run --assume-clean, chunk 64K, no bitmap,
# R5_DEV_MB (32) MiB of each member; stripe_cache_size set to 17, the
# minimum raid5_set_cache_size() accepts (16 must be refused), and pinned
# there with failslab if the kernel has it (boot with slab_nomerge), since
# raid5d otherwise grows the cache under load.
#
# Phases (one KTAP test each; a failure of the setup ends the run):
#  1 setup
#  2 fio          R5_WRITERS fio jobs, 4 KiB O_DIRECT random writes to
#                 distinct regions, verify=crc32c (skipped without fio)
#  3 writers      R5_WRITERS concurrent dd writers (4 KiB O_DIRECT) to
#                 distinct regions, then every region read back and compared
#  4 cache-resize the same while stripe_cache_size cycles 256/17/32/17/64/17
#                 (grow_one_stripe()/drop_one_stripe())
#  5 quiesce      the same while group_thread_cnt cycles 2/0/4/0: each write
#                 suspends the array (raid5_quiesce()) under load, and the
#                 worker threads run handle_active_stripes()
#  6 check        the same with "check" in sync_action meanwhile, then an
#                 idle check: mismatch_cnt must be 0
#  7 reshape      the same while mdadm --grow adds a member (check_reshape(),
#                 resize_stripes(); the array is suspended for it), then
#                 waits for the reshape and verifies (R5_RESHAPE=0 skips)
# A watchdog fails a phase whose writers (or side job) are not done within
# R5_TIMEOUT seconds, after printing the tasks in D state with their
# /proc/PID/stack, /proc/mdstat and the array's sysfs state (and sysrq w).
# Each phase reports its elapsed times, the keyed_wait tracepoint counts
# (hist triggers; keyed_wait events are global, but nothing else here
# uses keyed_wait), the wakeups (schedstat ttwu_count, needs
# schedstats=enable) and context switches.
#
# Env: MDADM (mdadm in PATH), R5_WRITERS (64),
#      R5_REGION_KB (512, per writer), R5_NDEV (4), R5_DEV_MB (32),
#      R5_TIMEOUT (120 s per writer phase), R5_SYNC_TIMEOUT (600 s for a
#      check or reshape; 90 s without progress is a stall), R5_RESHAPE (1),
#      R5_FIO (1 if fio exists), R5_PIN (auto|0), R5_TRACE (1),
#      R5_SYSRQ (1: sysrq w on a hang), R5_FORCE (0).
# Exit status: 0 pass, 1 fail, 4 skip (not root, no raid456, no mdadm...).
set -uo pipefail
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

MDADM=${MDADM:-$(command -v mdadm)}
W=${R5_WRITERS:-64}
REGION=$((${R5_REGION_KB:-512} * 1024))
NDEV=${R5_NDEV:-4}
DEV_MB=${R5_DEV_MB:-32}
TIMEOUT=${R5_TIMEOUT:-120}
SYNC_TIMEOUT=${R5_SYNC_TIMEOUT:-600}
STALL=90
DO_RESHAPE=${R5_RESHAPE:-1}
DO_PIN=${R5_PIN:-auto}
DO_TRACE=${R5_TRACE:-1}
DO_SYSRQ=${R5_SYSRQ:-1}
BS=4096
DATA_OFF_MB=8
NTESTS=7

KSFT_PASS=0 KSFT_FAIL=1 KSFT_SKIP=4
# mdadm without udev (none in the guest) makes its device nodes itself;
# without systemd it forks its reshape monitor itself.
export MDADM_NO_UDEV=1 MDADM_NO_SYSTEMCTL=1

msg() { echo "# raid5_smoke: $*"; }
indent() { sed 's/^/#   /'; }
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# --- results ----------------------------------------------------------------
tnum=0 npass=0 nfail=0 nskip=0
result() {	# result pass|fail|skip NAME [REASON]
	tnum=$((tnum + 1))
	case $1 in
	pass) npass=$((npass + 1)); echo "ok $tnum $2" ;;
	fail) nfail=$((nfail + 1)); echo "not ok $tnum $2${3:+ # $3}" ;;
	skip) nskip=$((nskip + 1)); echo "ok $tnum $2 # SKIP ${3:-}" ;;
	esac
}
skip_all() {
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# --- state for the cleanup ----------------------------------------------------
work="" work_mounted=0 md_dev="" sys="" loaded_brd=0
loops=() devs=() spare="" pids=() side_pids=() trdir="" tr_mounted=0 trace_mode=none
fs_dir=/sys/kernel/debug/failslab pinned="" hung=0 cache_want=17

# shellcheck disable=SC2317 # used by the EXIT trap
# bounded SECS WHAT CMD...: run CMD in the background and wait at most SECS
# for it; a command stuck in the kernel is left behind, so that this
# script still exits (and the VM powers off).
bounded() {
	local limit=$1 what=$2 pid t0=$SECONDS
	shift 2
	"$@" &
	pid=$!
	while is_running "$pid"; do
		if ((SECONDS - t0 >= limit)); then
			msg "$what: not done after ${limit}s, left running (pid $pid)"
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}

# is_running PID: the process exists and is not a zombie.
is_running() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[[ ${st%% *} != Z ]]
}

# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local rc=$? p d
	trap - EXIT
	set +e
	for p in "${pids[@]}" "${side_pids[@]}"; do
		is_running "$p" && kill "$p" 2>/dev/null
	done
	tracing_exit
	if [[ -n $pinned ]]; then
		echo 0 >"$pinned" 2>/dev/null
		echo 0 >"$fs_dir/probability" 2>/dev/null
	fi
	if [[ -n $md_dev && -e $md_dev ]]; then
		if ((hung)); then
			msg "cleanup: a hang was seen; trying mdadm --stop anyway (bounded)"
		fi
		bounded 30 "mdadm --stop" "$MDADM" --stop "$md_dev" 2>&1 | indent
	fi
	for d in "${loops[@]}"; do
		losetup -d "$d" 2>/dev/null
	done
	if ((loaded_brd)); then
		rmmod brd 2>/dev/null || msg "cleanup: rmmod brd failed"
	fi
	if [[ -n $work ]]; then
		((work_mounted)) && umount "$work" 2>/dev/null
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT

# --- tracing: keyed_wait hist triggers ------------------------------------------
kw_events=(keyed_wake keyed_wait_enqueue keyed_wait_chosen keyed_wait_hand_on keyed_wait_end)
declare -A kw_trig=(
	[keyed_wake]="hist:keys=reason:vals=hitcount,woken,visited"
	[keyed_wait_enqueue]="hist:keys=at_head"
	[keyed_wait_chosen]="hist:keys=reason"
	[keyed_wait_hand_on]="hist:keys=dropped,reason"
	[keyed_wait_end]="hist:keys=reason:vals=hitcount,overtaken"
)

tracing_init() {
	local d e
	((DO_TRACE)) || return 0
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[[ -d $d/events ]] && { trdir=$d; break; }
	done
	if [[ -z $trdir ]] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		trdir=/sys/kernel/tracing tr_mounted=1
	fi
	if [[ -z $trdir || ! -d $trdir/events/keyed_wait ]]; then
		msg "tracing: no keyed_wait tracepoints in this kernel: no counts"
		trdir=""
		return 0
	fi
	# ">>": opening a trigger file with O_TRUNC drops every hist trigger.
	if [[ -e $trdir/events/keyed_wait/keyed_wake/hist ]]; then
		trace_mode=hist
		for e in "${kw_events[@]}"; do
			[[ -e $trdir/events/keyed_wait/$e/trigger ]] || continue
			echo "${kw_trig[$e]}" >>"$trdir/events/keyed_wait/$e/trigger" || trace_mode=none
		done
	fi
	if [[ $trace_mode != hist ]]; then
		echo 16384 >"$trdir/buffer_size_kb" 2>/dev/null
		: >"$trdir/trace"
		echo 1 >"$trdir/events/keyed_wait/enable" && trace_mode=buffer
	fi
	msg "tracing: keyed_wait counts by $trace_mode"
}

# Write each event's hist trigger to its trigger file, as "PREFIX<trigger>SUFFIX".
kw_triggers() {	# kw_triggers PREFIX SUFFIX
	local e
	for e in "${kw_events[@]}"; do
		echo "$1${kw_trig[$e]}$2" >>"$trdir/events/keyed_wait/$e/trigger" 2>/dev/null
	done
}

tracing_clear() {
	case $trace_mode in
	hist) kw_triggers "" ":clear" ;;
	buffer) : >"$trdir/trace" ;;
	esac
}

tracing_report() {	# tracing_report PHASE
	local e
	case $trace_mode in
	hist)
		for e in "${kw_events[@]}"; do
			[[ -e $trdir/events/keyed_wait/$e/hist ]] || continue
			awk -v ph="$1" -v ev="$e" '
			function rn(v) {
				if (v == 2) return "capacity"
				if (v == 3) return "key"
				if (v == 4) return "handoff"
				if (v == -512) return "signal"
				if (v == -110) return "timeout"
				return v
			}
			/^\{/ {
				s = $0; gsub(/[{},]/, " ", s); n = split(s, f, " ")
				k = ""; v = ""; inkey = 1
				for (i = 1; i < n; i += 2) {
					name = f[i]; sub(/:$/, "", name)
					if (name == "hitcount") inkey = 0
					val = f[i + 1]
					if (inkey) k = k " " name "=" (name == "reason" ? rn(val) : val)
					else v = v " " name "=" val
				}
				line[++m] = k " :" v
				next
			}
			/Dropped: [1-9]/ { drop = $2 }
			END {
				if (!m) { printf "# keyed_wait %s %s: none\n", ph, ev; exit }
				for (i = 1; i <= m; i++) printf "# keyed_wait %s %s:%s\n", ph, ev, line[i]
				if (drop) printf "# keyed_wait %s %s: hist dropped %s entries\n", ph, ev, drop
			}' "$trdir/events/keyed_wait/$e/hist"
		done ;;
	buffer)
		grep -aoE ' keyed_(wake|wait_[a-z_]+):' "$trdir/trace" | sort | uniq -c |
			awk -v ph="$1" '{ printf "# keyed_wait %s %s %d events (trace buffer; may have overflowed)\n", ph, $2, $1 }' ;;
	esac
}

# shellcheck disable=SC2317 # called from the EXIT trap
tracing_exit() {
	case $trace_mode in
	hist) kw_triggers "!" "" ;;
	buffer) echo 0 >"$trdir/events/keyed_wait/enable" 2>/dev/null ;;
	esac
	trace_mode=none
	((tr_mounted)) && umount "$trdir" 2>/dev/null
	tr_mounted=0
}

# --- counters: wakeups (schedstat) and context switches --------------------------
ttwu() { awk '/^cpu[0-9]/ { s += $6 } END { print s + 0 }' /proc/schedstat 2>/dev/null || echo 0; }
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
sched_on() { [[ $(cat /proc/sys/kernel/sched_schedstats 2>/dev/null) == 1 ]]; }

# --- diagnostics ---------------------------------------------------------------
md_state() {
	local f
	for f in array_state sync_action sync_completed raid_disks stripe_cache_size \
		 stripe_cache_active group_thread_cnt mismatch_cnt reshape_position; do
		[[ -e $sys/$f ]] && printf '%s=%s ' "$f" "$(cat "$sys/$f" 2>/dev/null)"
	done
	echo
}

dump_stuck() {
	local p st comm n=0
	hung=1
	msg "HANG: $*"
	msg "tasks in D state (stacks of the first 24):"
	for p in /proc/[0-9]*; do
		{ read -r st <"$p/stat"; } 2>/dev/null || continue
		st=${st##*) }
		[[ ${st%% *} == D ]] || continue
		n=$((n + 1))
		comm=$(cat "$p/comm" 2>/dev/null)
		echo "# D pid=${p#/proc/} comm=$comm wchan=$(cat "$p/wchan" 2>/dev/null)"
		((n <= 24)) && indent 2>/dev/null <"$p/stack"
	done
	msg "$n tasks in D state"
	msg "/proc/mdstat:"
	[[ -r /proc/mdstat ]] && indent </proc/mdstat
	msg "md: $(md_state)"
	tracing_report hang
	if ((DO_SYSRQ)) && [[ -w /proc/sysrq-trigger ]]; then
		msg "sysrq w: blocked tasks to the console"
		echo w >/proc/sysrq-trigger
	fi
}

# watch LIMIT WHAT PID...: wait until every PID has exited, printing
# progress every 15 s; after LIMIT seconds dump the stuck state and fail.
# Then collect the exit statuses: 0 if all exited 0.
watch() {
	local limit=$1 what=$2 t0=$SECONDS next=15 p alive bad=0
	shift 2
	while :; do
		alive=0
		for p; do
			is_running "$p" && alive=$((alive + 1))
		done
		((alive)) || break
		if ((SECONDS - t0 >= limit)); then
			dump_stuck "$alive of $# $what not done after ${limit}s"
			return 2
		fi
		if ((SECONDS - t0 >= next)); then
			msg "  ${SECONDS}s: $alive of $# $what running; $(md_state)"
			next=$((next + 15))
		fi
		sleep 0.5
	done
	for p; do
		wait "$p" || bad=$((bad + 1))
	done
	((bad == 0)) || { msg "$bad of $# $what exited non-zero"; return 1; }
}

# wait_sync WHAT: wait until sync_action is idle (and no reshape is
# pending), failing after SYNC_TIMEOUT s or STALL s without progress.
wait_sync() {
	local t0=$SECONDS last="" tlast=$SECONDS cur act
	while :; do
		act=$(cat "$sys/sync_action")
		if [[ $act == idle && $(cat "$sys/reshape_position" 2>/dev/null || echo none) == none ]]; then
			return 0
		fi
		cur=$(cat "$sys/sync_completed" 2>/dev/null)
		if [[ $cur != "$last" ]]; then
			last=$cur tlast=$SECONDS
		elif ((SECONDS - tlast >= STALL)); then
			dump_stuck "$1: no progress for ${STALL}s ($act, $cur)"
			return 1
		fi
		if ((SECONDS - t0 >= SYNC_TIMEOUT)); then
			dump_stuck "$1: not done after ${SYNC_TIMEOUT}s ($act, $cur)"
			return 1
		fi
		sleep 1
	done
}

# idle_check: once the writers are done every stripe is released, and the
# cache shrinks back to cache_want (drop_one_stripe() leaves the stripes
# that a grant covers alone: a grant still counted with nobody waiting
# shows here).
idle_check() {
	local i act=0 got
	for ((i = 0; i < 20; i++)); do
		act=$(cat "$sys/stripe_cache_active")
		((act == 0)) && break
		sleep 0.5
	done
	if ((act != 0)); then
		msg "stripe_cache_active still $act 10s after the writers"
		return 1
	fi
	echo "$cache_want" >"$sys/stripe_cache_size" 2>/dev/null
	got=$(cat "$sys/stripe_cache_size")
	if [[ $got != "$cache_want" ]]; then
		msg "stripe_cache_size reads $got after writing $cache_want with the array idle"
		return 1
	fi
}

# --- data: one random file per pass, writer i owns region i --------------------
new_data() { head -c $((W * REGION)) /dev/urandom >"$work/data"; }

start_writers() {
	local i nblk=$((REGION / BS))
	pids=()
	for ((i = 0; i < W; i++)); do
		dd if="$work/data" of="$md_dev" bs=$BS skip=$((i * nblk)) seek=$((i * nblk)) \
			count=$nblk oflag=direct conv=notrunc status=none 2>"$work/w$i.err" &
		pids+=("$!")
	done
}

verify_data() {
	local out off
	if ! dd if="$md_dev" of="$work/readback" bs="$REGION" count="$W" iflag=direct status=none; then
		msg "read-back of the array failed"
		return 1
	fi
	if out=$(cmp "$work/data" "$work/readback" 2>&1); then
		return 0
	fi
	msg "data mismatch: $out"
	off=$(sed -n 's/.* byte \([0-9]*\).*/\1/p' <<<"$out")
	[[ -n $off ]] && msg "first bad byte is in region $(((off - 1) / REGION)), 4K block $((((off - 1) % REGION) / BS))"
	cmp -l "$work/data" "$work/readback" 2>/dev/null | awk -v r="$REGION" '
		{ bad[int(($1 - 1) / r)]++ } END { for (k in bad) n++; printf "# raid5_smoke: %d regions differ\n", n }'
	return 1
}

# --- side jobs (background, while the writers run) --------------------------
side_cache_resize() {
	local sizes=(256 17 32 17 64 17) i=0 s
	while [[ ! -e $work/stop ]]; do
		s=${sizes[i % ${#sizes[@]}]}
		echo "$s" >"$sys/stripe_cache_size" || echo "stripe_cache_size=$s refused" >>"$work/side.err"
		i=$((i + 1))
		sleep 0.5
	done
	echo 17 >"$sys/stripe_cache_size"
	echo "$i stripe_cache_size writes" >"$work/side.out"
}

side_quiesce() {
	local cnts=(2 0 4 0) i=0
	while [[ ! -e $work/stop ]]; do
		echo "${cnts[i % 4]}" >"$sys/group_thread_cnt" ||
			echo "group_thread_cnt=${cnts[i % 4]} refused" >>"$work/side.err"
		i=$((i + 1))
		sleep 1
	done
	echo 0 >"$sys/group_thread_cnt"
	echo "$i group_thread_cnt writes (each suspends the array)" >"$work/side.out"
}

side_check() {
	echo check >"$sys/sync_action" || echo "check refused" >>"$work/side.err"
	echo "check started" >"$work/side.out"
}

side_reshape() {
	local n=$((NDEV + 1))
	if ! "$MDADM" "$md_dev" --add "$spare" >"$work/side.out" 2>&1; then
		echo "mdadm --add failed" >>"$work/side.skip"
		return 0
	fi
	if "$MDADM" --grow "$md_dev" --raid-devices="$n" >>"$work/side.out" 2>&1; then
		return 0
	fi
	echo "retrying with a backup file" >>"$work/side.out"
	if ! "$MDADM" --grow "$md_dev" --raid-devices="$n" --backup-file="$work/reshape.backup" \
		>>"$work/side.out" 2>&1; then
		echo "mdadm --grow failed" >>"$work/side.skip"
	fi
}

# side_job PHASE: the side job of a phase, if it has one.
side_job() {
	case $1 in
	cache-resize) side_cache_resize ;;
	quiesce) side_quiesce ;;
	check) side_check ;;
	reshape) side_reshape ;;
	esac
}

# --- one phase ------------------------------------------------------------------
# phase NAME: new data, writers (+ the side job of NAME), watchdog, read-back.
# Sets phase_rc: 0 pass, 1 fail, 2 hang (then the run stops).
phase() {
	local name=$1 side=$1 t0 tw tv w0 c0 side_pid="" rc=0 src=0
	[[ $name == writers ]] && side=""
	msg "=== $name: $W writers x $((REGION / 1024)) KiB${side:+, with side job}"
	rm -f "$work/stop" "$work/side.out" "$work/side.err" "$work/side.skip"
	new_data
	tracing_clear
	w0=$(ttwu) c0=$(ctxt)
	t0=$EPOCHREALTIME
	start_writers
	if [[ -n $side ]]; then
		side_job "$side" &
		side_pid=$!
		side_pids+=("$side_pid")
	fi
	watch "$TIMEOUT" writers "${pids[@]}" || rc=$?
	tw=$(secs "$t0")
	touch "$work/stop"
	if [[ -n $side_pid ]] && ((rc != 2)); then
		# A reshape's mdadm may wait for the critical section.
		watch "$SYNC_TIMEOUT" "side job" "$side_pid" || src=$?
		((src == 2)) && rc=2
		((src == 1 && rc == 0)) && rc=1
	fi
	[[ -s $work/side.out ]] && msg "side: $(tr '\n' ' ' <"$work/side.out")"
	[[ -s $work/side.err ]] && { msg "side errors: $(tr '\n' ' ' <"$work/side.err")"; ((rc)) || rc=1; }
	if ((rc == 2)); then
		phase_rc=2
		return
	fi
	if ((rc)); then
		msg "writer errors:"
		cat "$work"/w*.err 2>/dev/null | sort | uniq -c | head -5 | indent
	fi
	msg "$name: writers done in ${tw}s ($(awk -v b=$((W * REGION)) -v t="$tw" \
		'BEGIN { printf "%.1f", (t > 0) ? b / 1048576 / t : 0 }') MiB/s); $(md_state)"
	if [[ $side == check || $side == reshape ]]; then
		if [[ -s $work/side.skip ]]; then
			phase_skip=$(tr "\n" " " <"$work/side.skip")
			phase_skip=${phase_skip% }
		else
			t0=$EPOCHREALTIME
			wait_sync "$name" || { phase_rc=2; return; }
			msg "$name: $side finished ${tw}s+$(secs "$t0")s after the start; $(md_state)"
		fi
	fi
	idle_check || rc=1
	t0=$EPOCHREALTIME
	verify_data || rc=1
	tv=$(secs "$t0")
	msg "$name: read-back and compare ${tv}s: $( ((rc)) && echo FAILED || echo ok)"
	if sched_on; then
		msg "$name: wakeups (ttwu_count) $(($(ttwu) - w0)), context switches $(($(ctxt) - c0))"
	else
		msg "$name: context switches $(($(ctxt) - c0)) (wakeups: boot with schedstats=enable)"
	fi
	tracing_report "$name"
	phase_rc=$rc
}

# --- setup ----------------------------------------------------------------------
pick_devices() {	# sets devs[] (NDEV members) and spare
	local need=$((NDEV + 1)) min_mb=$((DATA_OFF_MB + DEV_MB + 2)) i d mp minor sz ok=1 work_fs
	if [[ ! -d /sys/module/brd ]] && modprobe brd rd_nr=$need rd_size=65536 2>/dev/null; then
		loaded_brd=1
	fi
	if [[ -d /sys/module/brd ]]; then
		mp=$(cat /sys/module/brd/parameters/max_part 2>/dev/null || echo 1)
		((mp > 0)) || mp=1
		for ((i = 0; i < need; i++)); do
			d=/dev/ram$i
			if [[ ! -b $d ]]; then
				# brd_probe() creates ramN on the first open of its node.
				minor=$((i * mp))
				mknod "$d" b 1 "$minor" 2>/dev/null
			fi
			sz=$(blockdev --getsize64 "$d" 2>/dev/null || echo 0)
			if ((sz < min_mb * 1048576)) || [[ -n $(ls -A "/sys/block/ram$i/holders" 2>/dev/null) ]]; then
				msg "brd: $d unusable (size $sz, need $min_mb MiB; boot with brd.rd_size=65536?)"
				ok=0
				break
			fi
			devs+=("$d")
		done
		if ((ok)); then
			msg "devices: brd $(printf '%s ' "${devs[@]}")"
		else
			devs=()
		fi
	fi
	if ((${#devs[@]} == 0)); then
		work_fs=$work/loopfs
		mkdir -p "$work_fs"
		for ((i = 0; i < need; i++)); do
			truncate -s $((min_mb + 8))M "$work_fs/d$i" || return 1
			d=$(losetup -f --show "$work_fs/d$i") || return 1
			loops+=("$d")
			devs+=("$d")
		done
		msg "devices: loop on tmpfs $(printf '%s ' "${devs[@]}")"
	fi
	spare=${devs[NDEV]}
	devs=("${devs[@]:0:NDEV}")
	# Zero what the array uses: --assume-clean trusts that parity matches.
	for d in "${devs[@]}" "$spare"; do
		dd if=/dev/zero of="$d" bs=1M count="$min_mb" oflag=direct status=none || return 1
	done
}

pin_cache() {	# keep raid5d from growing the cache: failslab on its slab cache
	local cache
	[[ $DO_PIN == 0 ]] && { msg "cache: not pinned (R5_PIN=0)"; return 0; }
	cache=/sys/kernel/slab/raid5-${md_dev##*/}/failslab
	if [[ ! -d $fs_dir || ! -e $cache ]]; then
		msg "cache: not pinned (no failslab or merged slab cache: CONFIG_FAILSLAB + boot slab_nomerge); raid5d may grow it"
		return 0
	fi
	if ! echo 1 >"$cache" 2>/dev/null; then
		msg "cache: not pinned (slab cache merged: boot with slab_nomerge)"
		return 0
	fi
	pinned=$cache
	# raid5d grows with __GFP_NOWARN and no reclaim: fails silently;
	# sysfs growth (GFP_KERNEL) is exempt (ignore-gfp-wait).
	echo 0 >"$fs_dir/verbose"
	echo Y >"$fs_dir/ignore-gfp-wait"
	echo Y >"$fs_dir/cache-filter"
	echo 1 >"$fs_dir/interval"
	echo -1 >"$fs_dir/times"
	echo 100 >"$fs_dir/probability"
	msg "cache: pinned (failslab on raid5-${md_dev##*/})"
}

setup() {
	local n out
	for ((n = 100; n < 128; n++)); do
		grep -q "^md$n " /proc/mdstat || break
	done
	md_dev=/dev/md$n
	pick_devices || { msg "no devices"; return 1; }
	if ! out=$("$MDADM" --create "$md_dev" --run --level=5 --raid-devices="$NDEV" \
		--chunk=64 --assume-clean --bitmap=none --metadata=1.2 \
		--data-offset=${DATA_OFF_MB}M --size=$((DEV_MB * 1024)) "${devs[@]}" 2>&1); then
		indent <<<"$out"
		msg "mdadm --create failed"
		return 1
	fi
	indent <<<"$out"
	sys=/sys/block/${md_dev##*/}/md
	[[ -d $sys ]] || { msg "no $sys"; return 1; }
	if (($(blockdev --getsize64 "$md_dev") < W * REGION)); then
		msg "array smaller than $W x $REGION bytes"
		return 1
	fi
	indent </proc/mdstat
	# No throttling of check/reshape by the writers' I/O (KiB/s).
	echo 200000 >"$sys/sync_speed_min"
	if echo 16 >"$sys/stripe_cache_size" 2>/dev/null; then
		msg "stripe_cache_size 16 was accepted (7.3 refuses <= 16)"
		return 1
	fi
	echo 17 >"$sys/stripe_cache_size" || { msg "stripe_cache_size 17 refused"; return 1; }
	[[ $(cat "$sys/stripe_cache_size") == 17 ]] || { msg "stripe_cache_size reads $(cat "$sys/stripe_cache_size")"; return 1; }
	msg "stripe_cache_size 17 (16 refused: the minimum)"
	pin_cache
	msg "md: $(md_state)"
}

# --- main -----------------------------------------------------------------------
echo "KTAP version 1"
[[ $EUID == 0 ]] || skip_all "must be run as root"
if [[ ${R5_FORCE:-0} != 1 ]] && ! grep -q virtme /proc/cmdline; then
	skip_all "not a virtme-ng guest (R5_FORCE=1 to run anyway: it creates RAM disks and an md array)"
fi
[[ -x $MDADM ]] || skip_all "no mdadm at $MDADM"
"$MDADM" --version >/dev/null 2>&1 || skip_all "$MDADM does not run"
for c in dd cmp blockdev losetup mknod awk head truncate; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
grep -q raid5 /proc/mdstat 2>/dev/null || modprobe raid456 2>/dev/null
grep -q raid5 /proc/mdstat 2>/dev/null || skip_all "no raid5 personality (CONFIG_MD_RAID456)"
echo "1..$NTESTS"
msg "kernel $(uname -r), $(nproc) CPUs; draft raid5 keyed_wait code: $(grep -qw raid5_wait_for_stripe /proc/kallsyms && echo present || echo absent)"
msg "$("$MDADM" --version 2>&1)"

work=$(mktemp -d /tmp/r5smoke.XXXXXX) || exit 1
if mount -t tmpfs -o size=$((W * REGION * 2 / 1048576 + 8 * (DATA_OFF_MB + DEV_MB + 10) + 64))m r5smoke "$work"; then
	work_mounted=1
fi

t_all=$EPOCHREALTIME
t0=$EPOCHREALTIME
if ! setup; then
	result fail setup
	exit "$KSFT_FAIL"
fi
msg "setup: $(secs "$t0")s"
result pass setup
tracing_init

# 2: fio with verify
if [[ ${R5_FIO:-1} == 1 ]] && command -v fio >/dev/null; then
	msg "=== fio: $W jobs x $((REGION / 1024)) KiB randwrite 4k direct, verify=crc32c"
	tracing_clear
	w0=$(ttwu) c0=$(ctxt) t0=$EPOCHREALTIME
	fio --name=r5fio --filename="$md_dev" --direct=1 --ioengine=psync --rw=randwrite \
		--bs=4k --size=$REGION --offset=0 --offset_increment=$REGION --numjobs="$W" \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --group_reporting \
		--output="$work/fio.out" </dev/null >/dev/null 2>"$work/fio.err" &
	pids=("$!")
	rc=0
	watch "$TIMEOUT" "fio" "${pids[0]}" || rc=$?
	if ((rc == 2)); then
		result fail fio "hang"
		exit "$KSFT_FAIL"
	fi
	grep -E 'err=|WRITE:|READ:|verify' "$work/fio.out" | indent
	[[ -s $work/fio.err ]] && indent <"$work/fio.err"
	msg "fio: $(secs "$t0")s; $(md_state)"
	sched_on && msg "fio: wakeups (ttwu_count) $(($(ttwu) - w0)), context switches $(($(ctxt) - c0))"
	tracing_report fio
	if ((rc)); then result fail fio "fio exit status or verify error"; else result pass fio; fi
else
	result skip fio "fio not installed (or R5_FIO=0)"
fi

for name in writers cache-resize quiesce check reshape; do
	if [[ $name == reshape ]]; then
		if [[ $DO_RESHAPE != 1 ]]; then
			result skip reshape "R5_RESHAPE=0"
			continue
		fi
		# check_stripe_cache(): a reshape needs 4 chunks' worth of stripes.
		cache_want=64
		echo 64 >"$sys/stripe_cache_size" || msg "stripe_cache_size 64 refused"
	fi
	t0=$EPOCHREALTIME phase_rc=0 phase_skip=""
	phase "$name"
	if ((phase_rc == 2)); then
		result fail "$name" "hang"
		exit "$KSFT_FAIL"
	fi
	if [[ $name == check && $phase_rc == 0 ]]; then
		# The idle check: --assume-clean on zeroed members, so no mismatch.
		echo check >"$sys/sync_action"
		t1=$EPOCHREALTIME
		for ((i = 0; i < 20; i++)); do
			[[ $(cat "$sys/sync_action") != idle ]] && break
			sleep 0.25
		done
		if ! wait_sync "idle check"; then
			result fail check "hang"
			exit "$KSFT_FAIL"
		fi
		mm=$(cat "$sys/mismatch_cnt")
		msg "check: idle check ${mm} mismatches in $(secs "$t1")s (last_sync_action $(cat "$sys/last_sync_action" 2>/dev/null))"
		((mm == 0)) || phase_rc=1
	fi
	if [[ $name == reshape && -z $phase_skip ]]; then
		msg "reshape: $(cat "$sys/raid_disks") members now"
		indent </proc/mdstat
	fi
	msg "$name: phase $( ((phase_rc)) && echo FAILED || echo ok) in $(secs "$t0")s"
	if [[ -n $phase_skip && $phase_rc == 0 ]]; then
		result skip "$name" "$phase_skip"
	elif ((phase_rc)); then
		result fail "$name"
	else
		result pass "$name"
	fi
done

msg "all phases: $(secs "$t_all")s"
echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
((nfail == 0)) || exit "$KSFT_FAIL"
exit "$KSFT_PASS"
