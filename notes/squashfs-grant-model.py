#!/usr/bin/env python3
# Exhaustive state-space model of squashfs's cache get/fill/share/put and
# scope exit on keyed_wait with counted wakeups (keyed_wake_capacity_free(),
# keyed_wait_may_take(), keyed_wait_drop_grant()), as in patches 1 and 4,
# and with hand-off: every capacity wakeup that finds a waiter may be a
# hand-off (the time bound may be reached at any moment, so both choices
# are explored), which forgets and marks the entry (the put's own, or any
# free one for a dropped grant) until the waiter counts one back.  Every
# interleaving of the tasks' steps is explored (breadth first); it reports
# states where the queue's grant count differs from the grants held
# (MISCOUNT), where waiters are queued with more entries free than grants
# held (INVARIANT), where cache->unused differs from the entries free and
# not marked (UNUSED), where an entry in use is marked (MARKED), and where
# no task can move but some are not done (STUCK: a waiter asleep with
# nobody left to wake it).
#
# usage: squashfs-grant-model.py ENTRIES 'PROGRAMS' [BUG]
#   ENTRIES   cache entries
#   PROGRAMS  a Python list of tuples, one per task: the blocks it gets
#             and puts, in order, e.g. "[(1,2),(2,3),(3,1),(1,3)]"
#   BUG       requeue-keeps-count: the bug of
#             mutants/requeue-keeps-grant-count, a requeued waiter's spent
#             grant still counted; no-handoff: grants only (the model as it
#             was before squashfs handed off); unreserved: the bug of
#             mutants/squashfs-handoff-unreserved, a fill may evict an
#             entry handed off; requeue-lifo: a requeued waiter goes
#             to the very head of the FIFO, as before kw_fifo_requeue()
#             (the kernel puts it back in order of arrival)
# A requeued waiter goes back to its place by arrival (the state keeps the
# order of arrival of the tasks queued or holding a grant).
# e.g. 2 entries, 4 tasks "[(1,2),(2,3),(3,1),(1,3)]": 282,220 states,
# stuck 0, 8 s; no-handoff 112,941; requeue-keeps-count 98 stuck of
# 322,974; unreserved: 112,725 states with cache->unused wrong of 465,898.
# 3 entries, 4 tasks "[(1,2),(2,3),(3,4),(4,1)]": 679,469 states, stuck 0,
# 30 s.  Grants only, 3 entries, 5 tasks "[(1,2),(2,3),(3,4),(4,1),(1,4)]":
# 5,889,502 states, stuck 0, 8 minutes (2026-12-06; 5,838,274 in the
# model before the order of arrival).  Written by a reviewer of the series
# (2026-12-01); a count-back no longer leaks into the other tasks' steps
# (2026-12-06: before, the model also explored a count-back without its
# take, states the kernel cannot reach).
import sys
REQ=set()
from collections import deque

NENT = int(sys.argv[1]); PROGS = eval(sys.argv[2])
ARG = sys.argv[3] if len(sys.argv) > 3 else ''
BUG = ARG == 'requeue-keeps-count'
HANDOFF = ARG != 'no-handoff'
UNRESERVED = ARG == 'unreserved'
LIFO = ARG == 'requeue-lifo'

# waiter: (state, grant) state in Q(queued),I(idle),C,K,HO ; grant N,H,HD
# (handed off, not counted back),CL
# task: (pc, phase, entry, wstate, wgrant)
# phases: 'start','queued','chosen','filling','pend','exit','hold','done'

def init():
    ents = tuple((None, 0, 0, 0) for _ in range(NENT))  # block, ref, pending, handed
    tasks = tuple((0, 'start', -1, 'I', 'N') for _ in PROGS)
    # ents, unused, fifo (tuple of tids), nr_grants, tasks, order: the tasks
    # queued or holding a grant, in order of arrival (keyed_waiter.seq)
    return (ents, NENT, (), 0, tasks, ())

def find(ents, b):
    for i,e in enumerate(ents):
        if e[0] == b and not e[3]: return i
    return -1

def evictable(e):
    return e[1] == 0 and (UNRESERVED or not e[3])

class S:
    def __init__(s, st):
        s.ents=[list(e) for e in st[0]]; s.unused=st[1]; s.fifo=list(st[2]); s.ng=st[3]; s.tasks=[list(t) for t in st[4]]
        s.order=list(st[5])
    def freeze(s):
        order = tuple(t for t in s.order if t in s.fifo or s.tasks[t][4] in ('H', 'HD'))
        return (tuple(tuple(e) for e in s.ents), s.unused, tuple(s.fifo), s.ng, tuple(tuple(t) for t in s.tasks), order)
    def set_grant(s, t, g):
        if s.tasks[t][4]=='H': s.ng-=1
        if g=='H': s.ng+=1
        s.tasks[t][4]=g
    def choose(s, t, why):
        s.fifo.remove(t)
        if why=='C': s.set_grant(t,'H')
        if why=='HO': s.set_grant(t,'HD')
        s.tasks[t][3]=why; s.tasks[t][1]='chosen'
    def wake_one(s):
        if s.fifo: s.choose(s.fifo[0],'C')
    def cap_free(s, nfree):
        if not s.fifo or nfree <= s.ng: return
        s.wake_one()
    def hand_off(s, j):
        s.choose(s.fifo[0],'HO'); s.ents[j][0]=None; s.ents[j][3]=1
    def count_back(s, t):
        for e in s.ents:
            if e[3]:
                e[3]=0; s.unused+=1; s.set_grant(t,'H'); return
        global nocb
        nocb+=1
        if nocb<3: print('COUNT BACK finds no entry handed off', s.freeze())
    def key_wake(s, b):
        for t in list(s.fifo):
            if PROGS[t][s.tasks[t][0]] == b: s.choose(t,'K')
    def claim(s, t):
        if s.tasks[t][4]=='H': s.set_grant(t,'CL')
    def enqueue(s, t):
        at_head = s.tasks[t][4]=='H'
        if at_head: REQ.add(1)
        if BUG: s.tasks[t][4]='N'
        else: s.set_grant(t,'N')
        s.tasks[t][3]='Q'; s.tasks[t][1]='queued'
        if at_head and LIFO:
            s.fifo.insert(0,t)
        elif at_head:
            # kw_fifo_requeue(): back to its place by arrival
            later=[u for u in s.fifo if s.order.index(u) > s.order.index(t)]
            s.fifo.insert(s.fifo.index(later[0]) if later else len(s.fifo), t)
        else:
            if t in s.order: s.order.remove(t)
            s.order.append(t); s.fifo.append(t)

def succ(st):
    out=[]
    for t in range(len(PROGS)):
        pc, ph = st[4][t][0], st[4][t][1]
        if ph=='done': continue
        b = PROGS[t][pc] if pc < len(PROGS[t]) else None
        if ph in ('start','chosen'):
            opts = [None]
            # fill chooses any free entry (round-robin is a special case)
            s=S(st); waiter = ph=='chosen'; base=st
            if waiter and s.tasks[t][4]=='HD':
                # keyed_wait_event_locked(): squashfs_cache_count_back(),
                # in the same critical section as the take (base, not st:
                # the other tasks' steps start from st)
                s.count_back(t); base=s.freeze()
            i=find(s.ents,b)
            def may(w):
                # keyed_wait_may_take(): a unit handed off and counted back
                # may be taken whatever other grants are out
                if w is not None and s.tasks[w][3]=='HO':
                    return s.unused > 0
                return s.unused > s.ng - (1 if (w is not None and s.tasks[w][4]=='H') else 0)
            if not waiter and not (i>=0 or may(None)):
                # squashfs_cache_wait: cond false -> enqueue, sleep
                s.enqueue(t); out.append(s.freeze()); continue
            if waiter and not (i>=0 or may(t)):
                s.enqueue(t); out.append(s.freeze()); continue
            w = t if waiter else None
            if i<0:
                for j,e in enumerate(s.ents):
                    if evictable(e):
                        s2=S(base); s2.unused-=1
                        if w is not None: s2.claim(t)
                        s2.ents[j]=[b,1,1,s2.ents[j][3]]; s2.key_wake(b)
                        s2.tasks[t][1]='filling'; s2.tasks[t][2]=j
                        out.append(s2.freeze())
                continue
            e=s.ents[i]
            if e[1]==0:
                s.unused-=1
                if w is not None: s.claim(t)
            e[1]+=1
            s.tasks[t][2]=i
            s.tasks[t][1]='pend' if e[2] else ('exit' if waiter else 'hold')
            if w is not None:
                # keyed_wait_drop_grant(): a grant, or a hand-off of any
                # free entry not marked (the caller takes it out of unused)
                if s.tasks[t][4]=='H': s.set_grant(t,'N')
                if s.fifo and s.unused > s.ng and HANDOFF:
                    for j,f in enumerate(s.ents):
                        if f[1]==0 and not f[3]:
                            s2=S(s.freeze()); s2.unused-=1; s2.hand_off(j)
                            out.append(s2.freeze())
                s.cap_free(s.unused)
            out.append(s.freeze())
        elif ph=='filling':
            s=S(st); s.ents[s.tasks[t][2]][2]=0; s.tasks[t][1]='exit' if s.tasks[t][3]!='I' else 'hold'
            out.append(s.freeze())
        elif ph=='pend':
            if st[0][st[4][t][2]][2]==0:
                s=S(st); s.tasks[t][1]='exit' if s.tasks[t][3]!='I' else 'hold'; out.append(s.freeze())
        elif ph=='exit':
            s=S(st)
            if s.tasks[t][4]=='H':
                s.set_grant(t,'N'); s.wake_one()
            s.tasks[t][3]='I'; s.tasks[t][4]='N'   # new waiter next get
            s.tasks[t][1]='hold'; out.append(s.freeze())
        elif ph=='hold':
            s=S(st); j=s.tasks[t][2]; e=s.ents[j]; e[1]-=1
            s.tasks[t][0]+=1; s.tasks[t][2]=-1
            s.tasks[t][1]='done' if s.tasks[t][0]==len(PROGS[t]) else 'start'
            if e[1]==0:
                # squashfs_cache_put(): keyed_wake_capacity_free(unused + 1)
                # hands this entry off, or grants and counts it free
                if s.fifo and s.unused + 1 > s.ng and HANDOFF:
                    s2=S(s.freeze()); s2.hand_off(j); out.append(s2.freeze())
                s.unused+=1; s.cap_free(s.unused)
            out.append(s.freeze())
    return out

seen={init()}; dq=deque([init()]); bad=0; inv=0; mis=0; unu=0; mk=0; nocb=0
while dq:
    st=dq.popleft()
    ents,unused,fifo,ng,tasks,order=st
    held=sum(1 for x in tasks if x[4]=='H')
    if held!=ng:
        mis+=1
        if mis<3: print('MISCOUNT',st)
    if unused != sum(1 for e in ents if e[1]==0 and not e[3]):
        unu+=1
        if unu<3: print('UNUSED (cache->unused wrong)', st)
    if any(e[1] and e[3] for e in ents):
        mk+=1
        if mk<3: print('MARKED (an entry in use marked handed off)', st)
    if fifo and unused>ng:
        inv+=1
        if inv<3: print('INVARIANT (free>grants with waiters)', st)
    nx=succ(st)
    if not nx and any(x[1]!='done' for x in tasks):
        bad+=1
        if bad<3: print('STUCK', st)
    for n in nx:
        if n not in seen: seen.add(n); dq.append(n)
print('requeue seen', bool(REQ))
print('states', len(seen), 'stuck', bad, 'invariant viol', inv, 'miscount', mis,
      'unused wrong', unu, 'marked in use', mk, 'count-back finds none', nocb)
sys.exit(1 if bad or inv or mis or unu or mk or nocb else 0)
