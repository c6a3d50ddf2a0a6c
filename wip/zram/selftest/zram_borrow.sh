#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zram stream contention end-to-end test.
#
# For each of zstd and lzo-rle: pre-write a verifiable region of a zram
# device, then for ZRAM_BORROW_RUNTIME seconds run at once
#  - fio readers at nice 19 (2 per CPU) and at nice -19 (1 per CPU) that
#    read the pre-written region back and verify it (crc32c),
#  - fio writers at nice 0 writing and verifying a separate region,
#  - nice 0 busy loops (1 per CPU),
#  - CPU hotplug of CPUs 1..N-1 (off, on, ...) if supported,
# then verify the pre-written region once more.  Fails on any fio error,
# verify error or hang (timeout).  Reports the nice -19 readers' IOPS and
# completion latency (a low-priority stream holder preempted by the busy
# loops delays them: priority inversion), context switches and wakeups per
# I/O, and, with the keyed_wait tracepoints, stream waits and wakeups per
# stream release.
#
# Env: ZRAM_BORROW_RUNTIME (s, default 15), ZRAM_BORROW_ALGS (default
#      "zstd lzo-rle"), ZRAM_BORROW_HOTPLUG (1; 0 disables hotplug).

ksft_pass=0
ksft_fail=1
ksft_skip=4

runtime=${ZRAM_BORROW_RUNTIME:-15}
algs=${ZRAM_BORROW_ALGS:-zstd lzo-rle}
do_hotplug=${ZRAM_BORROW_HOTPLUG:-1}
disksize=256M
prefill_mb=64
wr_off_mb=128
wr_mb=32
pattern=0x0123456789abcdeffedcba98765432100f1e2d3c4b5a69788796a5b4c3d2e1f0
grace=180

msg() { echo "# zram_borrow: $*"; }

skip() {
	msg "SKIP: $*"
	exit $ksft_skip
}

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
command -v fio >/dev/null || skip "fio not installed"
command -v python3 >/dev/null || skip "python3 not installed"
command -v timeout >/dev/null || skip "timeout not installed"
if [ ! -e /sys/class/zram-control/hot_add ]; then
	modprobe zram num_devices=0 >/dev/null 2>&1
	[ -e /sys/class/zram-control/hot_add ] || skip "no zram (CONFIG_ZRAM)"
fi

ncpu=$(nproc --all)
nonline=$(nproc)
tmp=$(mktemp -d /tmp/zram_borrow.XXXXXX) || exit $ksft_fail
hog_pids=""
hp_pid=""
dev_id=""
trdir=""
kprobe=""
schedstats=""

# --- tracing: keyed_wait hist triggers and a zcomp_stream_put() counter ----
wake_trig="hist:keys=reason:vals=hitcount,woken"
enq_trig="hist:keys=at_head"
end_trig="hist:keys=ret"
put_trig="hist:keys=common_pid"

tracing_init() {
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e $d/events ] && trdir=$d && break
	done
	if [ -z "$trdir" ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
			trdir=/sys/kernel/tracing
	fi
	[ -n "$trdir" ] && [ -e $trdir/events ] || { trdir=""; return; }
	if [ -w $trdir/kprobe_events ] &&
	   echo 'p:kprobes/zram_borrow_put zcomp_stream_put' \
		>>$trdir/kprobe_events 2>/dev/null; then
		kprobe=$trdir/events/kprobes/zram_borrow_put
	fi
}

trig() {	# trig EVENT_DIR TRIGGER on|off
	[ -e "$1/trigger" ] || return 0
	if [ "$3" = on ]; then
		echo "$2" >"$1/trigger"
	else
		echo "!$2" >"$1/trigger" 2>/dev/null
	fi
}

tracing_set() {	# on|off
	local kw=$trdir/events/keyed_wait

	[ -n "$trdir" ] || return 0
	trig $kw/keyed_wake "$wake_trig" "$1"
	trig $kw/keyed_wait_enqueue "$enq_trig" "$1"
	trig $kw/keyed_wait_end "$end_trig" "$1"
	[ -n "$kprobe" ] && trig $kprobe "$put_trig" "$1"
	return 0
}

tracing_save() {	# FILE PREFIX
	local kw=$trdir/events/keyed_wait e

	[ -n "$trdir" ] || return 0
	for e in $kw/keyed_wake $kw/keyed_wait_enqueue $kw/keyed_wait_end $kprobe; do
		[ -e "$e/hist" ] || continue
		echo "=== $(basename "$e")"
		cat "$e/hist"
	done >"$1"
}

tracing_exit() {
	[ -n "$trdir" ] || return 0
	tracing_set off
	[ -n "$kprobe" ] &&
		echo '-:kprobes/zram_borrow_put' >>$trdir/kprobe_events 2>/dev/null
	kprobe=""
}

# --- load --------------------------------------------------------------------
hotplug_cpus() {
	local c

	for c in $(seq 1 $((ncpu - 1))); do
		[ -w /sys/devices/system/cpu/cpu$c/online ] && echo "$c"
	done
}

hotplug_loop() {	# runs until $tmp/stop exists; counts in $tmp/hotplug
	local n=0 bad=0 c

	while [ ! -e "$tmp/stop" ]; do
		for c in $hp_cpus; do
			[ -e "$tmp/stop" ] && break
			echo 0 >/sys/devices/system/cpu/cpu$c/online 2>/dev/null || bad=$((bad + 1))
			sleep 0.3
			echo 1 >/sys/devices/system/cpu/cpu$c/online 2>/dev/null || bad=$((bad + 1))
			n=$((n + 1))
			sleep 0.3
		done
	done
	echo "$n $bad" >"$tmp/hotplug"
}

all_cpus_online() {
	local c

	for c in $hp_cpus; do
		echo 1 >/sys/devices/system/cpu/cpu$c/online 2>/dev/null
	done
}

stop_load() {
	local p

	touch "$tmp/stop"
	[ -n "$hp_pid" ] && wait "$hp_pid" 2>/dev/null
	hp_pid=""
	for p in $hog_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $hog_pids; do
		wait "$p" 2>/dev/null
	done
	hog_pids=""
	all_cpus_online
}

zram_remove() {
	[ -n "$dev_id" ] || return 0
	echo 1 >/sys/block/zram$dev_id/reset 2>/dev/null
	echo "$dev_id" >/sys/class/zram-control/hot_remove 2>/dev/null
	dev_id=""
}

cleanup() {
	stop_load
	[ -n "$schedstats" ] && echo "$schedstats" >/proc/sys/kernel/sched_schedstats
	tracing_exit
	zram_remove
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit $ksft_fail' INT TERM

sched_snap() {	# ttwu (sum over CPUs) and context switches
	local ttwu ctxt

	ttwu=$(awk '/^cpu[0-9]/ { s += $6 } END { print s + 0 }' /proc/schedstat 2>/dev/null)
	ctxt=$(awk '/^ctxt/ { print $2 }' /proc/stat)
	echo "${ttwu:-0} $ctxt"
}

fio_job() {	# the concurrent load
	cat <<EOF
[global]
filename=/dev/zram$dev_id
direct=1
ioengine=psync
bs=4k
verify=crc32c
verify_pattern=$pattern
verify_fatal=1
group_reporting=1
time_based=1
runtime=$runtime
percentile_list=50:99:99.9

[fg]
new_group
rw=randread
offset=0
size=${prefill_mb}M
numjobs=$nonline
nice=-19

[bg]
new_group
rw=randread
offset=0
size=${prefill_mb}M
numjobs=$((2 * nonline))
nice=19

[wr]
new_group
rw=randwrite
offset=${wr_off_mb}M
size=${wr_mb}M
offset_increment=${wr_mb}M
numjobs=2
nice=0
verify_backlog=64
EOF
}

run_fio() {	# NAME ARGS...: fio with a hang timeout, JSON in $tmp/NAME.json
	local name=$1 rc

	shift
	timeout -k 10 $((runtime + grace)) fio --output-format=json \
		--output="$tmp/$name.json" "$@" >"$tmp/$name.err" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && msg "$name: fio HUNG (timeout)"
	return $rc
}

verify_errors() {	# count fio verify complaints in the given files
	cat "$@" 2>/dev/null | grep -c -E 'verify failed|bad magic|bad header|verify: '
}

report() {	# ALG SNAP_BEFORE SNAP_AFTER HOTPLUG VERRS
	python3 - "$tmp/load.json" "$tmp/trace.txt" "$@" <<'EOF'
import json, re, sys

jf, tf, alg, b_ttwu, b_ctxt, a_ttwu, a_ctxt, hp, verrs = sys.argv[1:10]
with open(jf) as f:
    txt = f.read()
d = json.loads(txt[txt.index('{'):])
g = {}
ios = 0
for j in d['jobs']:
    g[j['jobname']] = j
    ios += j['read']['total_ios'] + j['write']['total_ios']

def lat(j, dd):
    c = j[dd]['clat_ns']
    p = c.get('percentile', {})
    return (j[dd]['iops'], c['mean'] / 1e6,
            p.get('99.000000', 0) / 1e6, c['max'] / 1e6)

fg = lat(g['fg'], 'read')
bg = lat(g['bg'], 'read')
wr = lat(g['wr'], 'write')
dt = int(a_ttwu) - int(b_ttwu)
dc = int(a_ctxt) - int(b_ctxt)
print('# %s: fg(nice-19) iops=%.0f clat avg=%.2fms p99=%.2fms max=%.1fms' % ((alg,) + fg))
print('# %s: bg(nice19) iops=%.0f clat max=%.1fms; wr(nice0) iops=%.0f clat max=%.1fms'
      % (alg, bg[0], bg[3], wr[0], wr[3]))
print('# %s: ios=%d verify_errors=%s fio_errors=%s hotplug(toggles,fails)=%s'
      % (alg, ios, verrs, ','.join(str(g[k]['error']) for k in ('fg', 'bg', 'wr')), hp))
print('# %s: ttwu=%d (%.2f/io) ctxt=%d (%.2f/io)'
      % (alg, dt, dt / max(ios, 1), dc, dc / max(ios, 1)))

# hist files: "=== event" then the hist output
sect = {}
cur = None
try:
    for line in open(tf):
        if line.startswith('=== '):
            cur = line[4:].strip()
            sect[cur] = []
        elif cur:
            sect[cur].append(line)
except OSError:
    pass

def total(ev):
    for line in sect.get(ev, []):
        m = re.match(r'\s*Hits:\s*(\d+)', line)
        if m:
            return int(m.group(1))
    return None

puts = total('zram_borrow_put')
if 'keyed_wake' not in sect:
    print('# %s: keyed_wait tracepoints absent; stream releases=%s'
          % (alg, puts if puts is not None else 'n/a'))
    sys.exit(0)
cap_calls = cap_woken = 0
for line in sect['keyed_wake']:
    m = re.search(r'reason:\s*(-?\d+).*hitcount:\s*(\d+)\s+woken:\s*(\d+)', line)
    if m and int(m.group(1)) == 2:
        cap_calls, cap_woken = int(m.group(2)), int(m.group(3))
enq = total('keyed_wait_enqueue') or 0
sleeps = total('keyed_wait_end') or 0
rel = puts if puts else None
print('# %s: stream waits(enqueue)=%d sleeps=%d capacity wakes=%d woken=%d'
      % (alg, enq, sleeps, cap_calls, cap_woken))
print('# %s: stream releases=%s woken/release=%s woken/wake-call=%.2f'
      % (alg, rel if rel is not None else 'n/a',
         '%.4f' % (cap_woken / rel) if rel else 'n/a',
         cap_woken / cap_calls if cap_calls else 0))
EOF
}

# --- one algorithm -----------------------------------------------------------
test_alg() {	# ALG: 0 pass, 1 fail, 4 skip
	local alg=$1 sys before after rc=0 fio_rc verrs hp="n/a" p t0

	dev_id=$(cat /sys/class/zram-control/hot_add) || return $ksft_fail
	sys=/sys/block/zram$dev_id
	if ! grep -q -w -- "$alg" $sys/comp_algorithm; then
		msg "$alg: not available ($(cat $sys/comp_algorithm))"
		zram_remove
		return $ksft_skip
	fi
	echo "$alg" >$sys/comp_algorithm &&
		echo $disksize >$sys/disksize || { zram_remove; return $ksft_fail; }
	t0=$(date +%s)
	msg "$alg: zram$dev_id $disksize, pre-writing ${prefill_mb}M"
	if ! run_fio fill --name=fill --filename=/dev/zram$dev_id --direct=1 \
		--ioengine=psync --bs=4k --rw=write --offset=0 \
		--size=${prefill_mb}M --verify=crc32c --verify_pattern=$pattern \
		--do_verify=0; then
		msg "$alg: pre-write failed"
		cat "$tmp/fill.err"
		zram_remove
		return $ksft_fail
	fi

	rm -f "$tmp/stop" "$tmp/hotplug"
	tracing_set on
	before=$(sched_snap)
	for p in $(seq 1 "$nonline"); do
		(while :; do :; done) &
		hog_pids="$hog_pids $!"
	done
	if [ -n "$hp_cpus" ]; then
		hotplug_loop &
		hp_pid=$!
	fi
	msg "$alg: ${runtime}s load: $nonline fg + $((2 * nonline)) bg readers," \
		"2 writers, $nonline hogs, hotplug cpus: ${hp_cpus:-none}"
	fio_job >"$tmp/load.fio"
	run_fio load "$tmp/load.fio"
	fio_rc=$?
	stop_load
	after=$(sched_snap)
	tracing_save "$tmp/trace.txt"
	tracing_set off
	[ -f "$tmp/hotplug" ] && hp=$(tr ' ' , <"$tmp/hotplug")

	msg "$alg: final verify of the pre-written ${prefill_mb}M"
	run_fio check --name=check --filename=/dev/zram$dev_id --direct=1 \
		--ioengine=psync --bs=4k --rw=read --offset=0 \
		--size=${prefill_mb}M --verify=crc32c --verify_pattern=$pattern \
		--verify_fatal=1
	p=$?
	verrs=$(verify_errors "$tmp/load.err" "$tmp/load.json" "$tmp/check.err" "$tmp/check.json")
	msg "$alg: mm_stat $(cat $sys/mm_stat)"

	if [ -s "$tmp/load.json" ] && grep -q '"jobs"' "$tmp/load.json"; then
		report "$alg" $before $after "$hp" "$verrs" || rc=$ksft_fail
	else
		rc=$ksft_fail
	fi
	if [ $fio_rc -ne 0 ] || [ $p -ne 0 ] || [ "$verrs" -ne 0 ]; then
		msg "$alg: FAIL: load fio rc=$fio_rc, check fio rc=$p, verify errors=$verrs"
		grep -h -m 20 -v '^$' "$tmp/load.err" "$tmp/check.err" | sed 's/^/#   /'
		rc=$ksft_fail
	fi
	msg "$alg: done in $(($(date +%s) - t0))s"
	zram_remove
	return $rc
}

hp_cpus=""
if [ "$do_hotplug" = 1 ]; then
	hp_cpus=$(hotplug_cpus | tr '\n' ' ')
	hp_cpus=${hp_cpus% }
fi
[ -z "$hp_cpus" ] && msg "CPU hotplug not available or disabled: not toggling"
tracing_init
if [ -w /proc/sys/kernel/sched_schedstats ]; then
	schedstats=$(cat /proc/sys/kernel/sched_schedstats)
	echo 1 >/proc/sys/kernel/sched_schedstats
fi
msg "cpus=$ncpu online=$nonline runtime=${runtime}s tracing=${trdir:-none}" \
	"keyed_wait=$([ -n "$trdir" ] && [ -e $trdir/events/keyed_wait ] && echo yes || echo no)" \
	"put-kprobe=$([ -n "$kprobe" ] && echo yes || echo no)"

result=$ksft_skip
n=0
for alg in $algs; do
	n=$((n + 1))
	test_alg "$alg"
	r=$?
	case $r in
	0) echo "ok $n zram_borrow $alg"
	   [ $result -eq $ksft_skip ] && result=$ksft_pass ;;
	4) echo "ok $n zram_borrow $alg # SKIP" ;;
	*) echo "not ok $n zram_borrow $alg"
	   result=$ksft_fail ;;
	esac
done
exit $result
