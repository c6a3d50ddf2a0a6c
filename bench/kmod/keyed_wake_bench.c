// SPDX-License-Identifier: GPL-2.0
/*
 * keyed_wake_bench - cost of one keyed wakeup against unrelated waiters
 *
 * For 1, 10, 100 and 1000 queued waiters, none of which waits for the key
 * being woken, time one keyed wakeup:
 *
 *  keyed: keyed_wait_lock(), keyed_wake_key() and keyed_wait_unlock() on a
 *	keyed_wait_queue with the hash size squashfs uses for its 8-entry
 *	metadata cache (order_base_2(8 * 2) chains); only the key's chain is
 *	walked.  These are the series kernel's own functions (exported, or
 *	inline in <linux/keyed_wait.h>), not copies.
 *  walk73: __wake_up() with a key on a wait_queue_head whose entries use
 *	a wake function comparing the key, as Linux 7.3's
 *	fs/squashfs/cache.c does; every entry is visited with interrupts off.
 *
 * and the uncontended release path (no waiter queued): the series'
 * keyed_wake_capacity() and keyed_wait_unlock() themselves against 7.3's
 * spin_lock, num_waiters test, spin_unlock ("open73"), which is timed twice
 * so that the two 7.3 figures show the noise of the comparison.
 *
 * The waiters are never woken: they are synthetic entries whose task is the
 * module's own (current).  Each figure is the median, over BENCH_BATCHES
 * batches, of the mean time per wakeup in a batch; results go to the
 * kernel log as "keyed_wake_bench: ..." lines.  Loading the module runs the
 * benchmark; unload it afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/keyed_wait.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait.h>

#define BENCH_BATCHES	101
#define BENCH_PER_BATCH	32
#define BENCH_ENTRIES	8	/* squashfs metadata cache entries */
#define BENCH_KEY	0x7fffffffULL	/* waited for by nobody */

static const unsigned int bench_waiters[] = { 1, 10, 100, 1000 };

struct walk_waiter {
	struct wait_queue_entry	wait;
	u64			block;
	bool			capacity_wake;
};

/* The wake function of 7.3's squashfs cache, minus the wakeup it never reaches. */
static int walk_wake_function(struct wait_queue_entry *wait, unsigned int mode,
			      int sync, void *key)
{
	struct walk_waiter *w = container_of(wait, struct walk_waiter, wait);
	u64 *block = key;

	if (block && w->block != *block)
		return 0;
	WRITE_ONCE(w->capacity_wake, !block);
	default_wake_function(wait, mode, sync, key);
	list_del_init_careful(&wait->entry);
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median of @t[], in ns per wakeup (each batch holds BENCH_PER_BATCH). */
static u64 median_ns(u64 *t)
{
	sort(t, BENCH_BATCHES, sizeof(*t), cmp_u64, NULL);
	return div_u64(t[BENCH_BATCHES / 2], BENCH_PER_BATCH);
}

static u64 bench_keyed(unsigned int n, u64 *t)
{
	struct keyed_wait_queue q;
	struct keyed_waiter *w;
	spinlock_t lock;	/* the queue's lock, as squashfs's cache->lock */
	unsigned int i, j;
	u64 t0;

	w = kvcalloc(n, sizeof(*w), GFP_KERNEL);
	if (!w)
		return 0;
	spin_lock_init(&lock);
	if (keyed_wait_init(&q, &lock, order_base_2(BENCH_ENTRIES * 2), 0)) {
		kvfree(w);
		return 0;
	}
	spin_lock(&lock);
	for (i = 0; i < n; i++) {
		w[i] = (struct keyed_waiter)KEYED_WAITER_INIT(&q,
				TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
		keyed_wait_enqueue(&w[i], i + 1);
	}
	spin_unlock(&lock);

	for (i = 0; i < BENCH_BATCHES; i++) {
		t0 = ktime_get_ns();
		for (j = 0; j < BENCH_PER_BATCH; j++) {
			keyed_wait_lock(&q);
			keyed_wake_key(&q, BENCH_KEY);
			keyed_wait_unlock(&q);
		}
		t[i] = ktime_get_ns() - t0;
		cond_resched();
	}

	spin_lock(&lock);
	for (i = 0; i < n; i++)
		keyed_wait_cancel(&w[i]);
	spin_unlock(&lock);
	keyed_wait_destroy(&q);
	kvfree(w);
	return median_ns(t);
}

static u64 bench_walk73(unsigned int n, u64 *t)
{
	struct wait_queue_head wq;
	struct walk_waiter *w;
	u64 key = BENCH_KEY;
	unsigned int i, j;
	u64 t0;

	w = kvcalloc(n, sizeof(*w), GFP_KERNEL);
	if (!w)
		return 0;
	init_waitqueue_head(&wq);
	spin_lock_irq(&wq.lock);
	for (i = 0; i < n; i++) {
		init_wait_func(&w[i].wait, walk_wake_function);
		w[i].wait.flags |= WQ_FLAG_EXCLUSIVE;
		w[i].block = i + 1;
		__add_wait_queue_entry_tail(&wq, &w[i].wait);
	}
	spin_unlock_irq(&wq.lock);

	for (i = 0; i < BENCH_BATCHES; i++) {
		t0 = ktime_get_ns();
		for (j = 0; j < BENCH_PER_BATCH; j++)
			__wake_up(&wq, TASK_NORMAL, 0, &key);
		t[i] = ktime_get_ns() - t0;
		cond_resched();
	}

	spin_lock_irq(&wq.lock);
	for (i = 0; i < n; i++)
		list_del_init(&w[i].wait.entry);
	spin_unlock_irq(&wq.lock);
	kvfree(w);
	return median_ns(t);
}

/* 7.3's squashfs_cache_put() tail: lock, num_waiters test, unlock. */
static u64 bench_release_73(spinlock_t *lock, struct wait_queue_head *wq,
			    int *num_waiters)
{
	u64 t0 = ktime_get_ns();
	unsigned int j;

	for (j = 0; j < BENCH_PER_BATCH; j++) {
		spin_lock(lock);
		if (READ_ONCE(*num_waiters)) {
			spin_unlock(lock);
			wake_up(wq);
			continue;
		}
		spin_unlock(lock);
	}
	return ktime_get_ns() - t0;
}

/*
 * Release with nobody waiting, what squashfs_cache_put() adds per call:
 * the real keyed_wake_capacity() and keyed_wait_unlock() against 7.3's
 * open-coded check, batches alternated, and the open-coded check timed
 * twice (A/A) for the noise of the comparison.
 */
static void bench_release(u64 *t)
{
	struct keyed_wait_queue q;
	struct wait_queue_head wq;
	spinlock_t lock;	/* the queue's lock, as squashfs's cache->lock */
	int num_waiters = 0;	/* 7.3's cache->num_waiters, always 0 here */
	u64 *t73 = t + BENCH_BATCHES, *taa = t + 2 * BENCH_BATCHES;
	unsigned int i, j;
	u64 t0, keyed, open_coded, again;

	spin_lock_init(&lock);
	init_waitqueue_head(&wq);
	if (keyed_wait_init(&q, &lock, 0, 0))
		return;
	for (i = 0; i < BENCH_BATCHES; i++) {
		t0 = ktime_get_ns();
		for (j = 0; j < BENCH_PER_BATCH; j++) {
			keyed_wait_lock(&q);
			keyed_wake_capacity(&q);
			keyed_wait_unlock(&q);
		}
		t[i] = ktime_get_ns() - t0;
		t73[i] = bench_release_73(&lock, &wq, &num_waiters);
		taa[i] = bench_release_73(&lock, &wq, &num_waiters);
	}
	keyed = median_ns(t);
	open_coded = median_ns(t73);
	again = median_ns(taa);
	keyed_wait_destroy(&q);
	pr_info("release waiters=0 keyed_ns=%llu open73_ns=%llu open73_again_ns=%llu\n",
		keyed, open_coded, again);
}

static int __init keyed_wake_bench_init(void)
{
	unsigned int i;
	u64 *t;

	/* bench_release() uses three runs of batches. */
	t = kcalloc(3 * BENCH_BATCHES, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	pr_info("start batches=%d per_batch=%d hash_bits=%d\n", BENCH_BATCHES,
		BENCH_PER_BATCH, order_base_2(BENCH_ENTRIES * 2));
	for (i = 0; i < ARRAY_SIZE(bench_waiters); i++) {
		unsigned int n = bench_waiters[i];
		u64 keyed = bench_keyed(n, t);
		u64 walk = bench_walk73(n, t);

		pr_info("wake waiters=%u keyed_ns=%llu walk73_ns=%llu\n", n,
			keyed, walk);
	}
	bench_release(t);
	pr_info("done\n");
	kfree(t);
	return 0;
}

static void __exit keyed_wake_bench_exit(void)
{
}

module_init(keyed_wake_bench_init);
module_exit(keyed_wake_bench_exit);
MODULE_DESCRIPTION("keyed_wait microbenchmark: keyed wakeup vs 7.3-style walk");
MODULE_LICENSE("GPL");
