/*
 * fork.c — memview across fork(): the pthread_atfork handlers (see fork.go for
 * what each side does and why) and the flag that makes a child refuse Go work
 * when the fork could not be made safe.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "capi.h"
#include "_cgo_export.h"

static long fork_wait_ms = 2000; /* MEMVIEW_FORK_WAIT_MS */
static int fork_ready;           /* prepare's verdict, read by the child handler */
static int go_unusable;          /* in a child forked while Go work could not be stopped */

/* The forking goroutine's status word in the runtime's g (fork.go explains), or 0. */
static uintptr_t status_word;

/* The word of the forking thread's M that names its P (m.p), or 0: the monitor
 * clears it when it takes the P away while the thread is back in C. */
static uintptr_t own_p_word;

#define G_SYSCALL 3u     /* _Gsyscall */
#define G_DEADEXTRA 11u  /* _Gdeadextra: an extra M's goroutine, also "in a system call" */
#define G_SCAN 0x1000u   /* _Gscan */

static int
in_syscall(uint32_t s)
{
    s &= ~G_SCAN;
    return s == G_SYSCALL || s == G_DEADEXTRA;
}

/* The runtime's words (fork.go), or 0: the scheduler's lock word and its
 * counts of spinning threads and of idle Ps (with the count that means every P
 * but the forking thread's is idle), and the heap's lock word. */
static uintptr_t sched_lock_word, sched_spinning_word, sched_idle_word, heap_lock_word;
static int32_t sched_idle_want;

#define MUTEX_LOCKED 0x1u /* the runtime mutex's locked bit (lock_spinbit.go) */

static int selftest_scan_bit; /* the test build's _selftest_fork_scan_bit */
static int selftest_child_finds; /* the test build's _selftest_fork_child_finds */
static uintptr_t held_word;   /* the word whose bit the test set, cleared in the parent */

uint32_t
mv_fork_read_word(uintptr_t addr)
{
    return __atomic_load_n((uint32_t *)addr, __ATOMIC_SEQ_CST);
}

void
mv_fork_set_status_word(uintptr_t addr)
{
    status_word = addr;
}

void
mv_fork_set_own_p_word(uintptr_t addr)
{
    own_p_word = addr;
}

/* own_p_held: the forking thread still holds the P it left Go with (1), the
 * monitor took it (0), unknown (-1). */
static int
own_p_held(void)
{
    if (own_p_word == 0)
        return -1;
    return __atomic_load_n((uintptr_t *)own_p_word, __ATOMIC_SEQ_CST) != 0;
}

void
mv_fork_set_sched_words(uintptr_t lock, uintptr_t spinning, uintptr_t idle, int idle_want, uintptr_t heap)
{
    sched_lock_word = lock;
    sched_spinning_word = spinning;
    sched_idle_word = idle;
    sched_idle_want = idle_want;
    heap_lock_word = heap;
}

struct segment_search {
    uintptr_t addr;
    void *start;
    size_t size;
};

static int
segment_of(struct dl_phdr_info *info, size_t info_size, void *data)
{
    struct segment_search *s = data;
    (void)info_size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (s->addr >= lo && s->addr < hi) {
            lo &= ~(uintptr_t)7;
            s->start = (void *)lo;
            s->size = hi - lo;
            return 1;
        }
    }
    return 0;
}

/* mv_fork_data_segment returns the start of the loaded object's writable
 * segment (its data and bss) that holds addr, word-aligned down, with its size
 * in *size; or NULL. fork.go looks there for the runtime's heap. */
void *
mv_fork_data_segment(uintptr_t addr, size_t *size)
{
    struct segment_search s = {addr, NULL, 0};
    *size = 0;
    if (addr == 0 || dl_iterate_phdr(segment_of, &s) == 0)
        return NULL;
    *size = s.size;
    return s.start;
}

static int
mutex_held(uintptr_t word)
{
    return word != 0 && (__atomic_load_n((uintptr_t *)word, __ATOMIC_SEQ_CST) & MUTEX_LOCKED) != 0;
}

/* runtime_locked: the scheduler's lock or the heap's, which a child needs, is
 * held (by some thread). */
static int
runtime_locked(void)
{
    return mutex_held(sched_lock_word) || mutex_held(heap_lock_word);
}

/* runtime_quiet reports whether no thread holds the scheduler's lock or the
 * heap's, none is spinning (looking for work, about to take the lock) and,
 * where the idle count is known, every P but the forking thread's is idle. */
static int
runtime_quiet(int idle_too)
{
    return !runtime_locked() && __atomic_load_n((int32_t *)sched_spinning_word, __ATOMIC_SEQ_CST) == 0 &&
           (!idle_too || sched_idle_word == 0 ||
            __atomic_load_n((int32_t *)sched_idle_word, __ATOMIC_SEQ_CST) >= sched_idle_want);
}

static long
now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* wait_runtime_quiet waits (up to 50 ms) until the runtime has been seen quiet
 * three times in a row, 10 us apart: the threads that the fork's preparation
 * woke (stopping and starting the world, the pass through the scheduler) or
 * that finished Go work just before are parked again, and no goroutine runs,
 * so none holds the scheduler's lock, or the heap's, at the fork. */
static int last_quiet = -1; /* the last prepare's wait: 1 quiet, 2 quiet but for a busy P,
                             * 0 timed out, -1 not looked at */
static int last_idle_looked;
static int last_reacquired;   /* the times the last wait took a P again */
static int busy_at_fork = -1; /* in a child: a P other than the forking thread's was busy at
                               * the fork (1), all were idle (0), not looked at (-1) */
static int p_taken_at_fork = -1; /* in a child: the forking thread's P had been taken at the
                                  * fork (1), not (0), unknown (-1) */

static void
wait_runtime_quiet(void)
{
    last_quiet = -1;
    last_idle_looked = sched_idle_word != 0;
    last_reacquired = 0;
    if (sched_lock_word == 0 || sched_spinning_word == 0)
        return;
    /* Every P idle, and this thread's still its own, is asked for during the
     * first 25 ms. (The idle count alone is blind to one case: the monitor may
     * take this thread's P, idle in C, to run a goroutine that was waiting, and
     * the P that goroutine left is idle instead.) When the P was taken, this
     * thread enters Go once more to get one. A goroutine that keeps running (a
     * bound package's own) never lets the wait succeed; then the fork still
     * waits for the scheduler's lock to be free and no thread spinning, and the
     * child refuses Go work (on_child). */
    long start = now_us(), deadline = start + 50000, strict_until = start + 25000;
    int seen = 0, strict = 1;
    const struct timespec pause = {0, 10000};
    while (seen < 3 && now_us() < deadline) {
        strict = now_us() < strict_until;
        if (strict && sched_idle_word != 0 && own_p_held() == 0) {
            seen = 0;
            last_reacquired++;
            mvgo_fork_reacquire();
            continue;
        }
        seen = runtime_quiet(strict) ? seen + 1 : 0;
        if (seen < 3)
            nanosleep(&pause, NULL);
    }
    last_quiet = seen < 3 ? 0 : strict ? 1 : 2;
}

PyObject *
mv_fork_selftest_last_wait(void)
{
    return Py_BuildValue("(iiiii)", last_quiet, last_idle_looked, busy_at_fork, p_taken_at_fork,
                         last_reacquired);
}

static void
on_prepare(void)
{
    fork_ready = mv_gate_close(fork_wait_ms);
    status_word = own_p_word = 0;
    sched_lock_word = sched_spinning_word = sched_idle_word = heap_lock_word = 0;
    if (go_unusable)
        return; /* a child that refuses Go forks again: nothing enters Go */
    mvgo_fork_prepare(); /* last: this thread leaves Go just before the fork */
    wait_runtime_quiet();
    if (status_word != 0) {
        /* Back in C, the goroutine is in a system call (sysmon may be visiting). */
        if (!in_syscall(mv_fork_read_word(status_word)))
            status_word = 0;
    }
    held_word = 0;
    if (selftest_scan_bit && status_word != 0) {
        /* Take the bit as sysmon does during a visit (a CAS: if sysmon holds it
         * now, the fork simply happens during a real visit). */
        uint32_t s = mv_fork_read_word(status_word) & ~G_SCAN;
        if (__atomic_compare_exchange_n((uint32_t *)status_word, &s, s | G_SCAN, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            held_word = status_word;
    }
}

static void
on_parent(void)
{
    if (held_word != 0) {
        uint32_t s = mv_fork_read_word(held_word);
        __atomic_compare_exchange_n((uint32_t *)held_word, &s, s & ~G_SCAN, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        held_word = 0;
    }
    if (!go_unusable)
        mvgo_fork_parent();
    mv_gate_open();
}

/* Nothing here enters Go: a child that only execs (subprocess) never does. */
static void
on_child(void)
{
    mv_gate_reset();
    if (status_word != 0) {
        /* A scan bit held by the parent's sysmon at the fork: no thread here will
         * ever clear it, and this thread is the only one left. */
        uint32_t s = mv_fork_read_word(status_word);
        if ((s & G_SCAN) && in_syscall(s))
            __atomic_store_n((uint32_t *)status_word, s & ~G_SCAN, __ATOMIC_SEQ_CST);
    }
    /* Whether a P other than one this thread left idle was running a goroutine
     * at the fork: every P but the forking thread's should be idle, and that one
     * too if the monitor took it without work to give it. */
    p_taken_at_fork = own_p_held() < 0 ? -1 : !own_p_held();
    busy_at_fork = -1;
    if (sched_idle_word != 0)
        busy_at_fork = __atomic_load_n((int32_t *)sched_idle_word, __ATOMIC_SEQ_CST) <
                       sched_idle_want + (p_taken_at_fork == 1);
    if (selftest_child_finds == 1 && heap_lock_word != 0) /* as if another thread held it at the fork */
        __atomic_or_fetch((uintptr_t *)heap_lock_word, MUTEX_LOCKED, __ATOMIC_SEQ_CST);
    /* Go work is refused here when the fork may have left a runtime lock held
     * by a thread the child does not have, which entering Go could wait on
     * forever:
     *   - the scheduler's lock or the heap's was held at the fork;
     *   - the wait never saw the runtime quiet with this thread holding its P:
     *     a goroutine kept running through it (a bound package's goroutine that
     *     never blocks), and may hold any lock at the fork, the heap's bitmap
     *     arenas' among them;
     *   - the monitor took this thread's P during the fork and a goroutine was
     *     running on it.
     * A P busy at the fork although the wait saw every other one idle (a
     * goroutine woken in between, on another P) is not refused for itself: a
     * worker woken by a ticker every millisecond is busy at about one fork in
     * six, and what it may hold that the child needs besides the two locks
     * checked is rare. It is recorded for the test build. */
    int kept_running = last_idle_looked && (last_quiet == 0 || last_quiet == 2);
    int ran_on_own_p = p_taken_at_fork == 1 && busy_at_fork == 1;
    if (!fork_ready || runtime_locked() || kept_running || ran_on_own_p)
        go_unusable = 1; /* never enter Go again in this process */
}

int
mv_install_fork_handlers(void)
{
    static int done;
    if (done)
        return 0;
    const char *ms = getenv("MEMVIEW_FORK_WAIT_MS");
    if (ms != NULL && *ms != 0) {
        char *end;
        long v = strtol(ms, &end, 10);
        if (*end == 0 && v >= 0)
            fork_wait_ms = v;
    }
    if (pthread_atfork(on_prepare, on_parent, on_child) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "memview: pthread_atfork failed");
        return -1;
    }
    done = 1;
    return 0;
}

/* mv_fork_selftest_scan_bit arms the test build's simulation of a sysmon visit at
 * the fork (selftest.c); returns whether the repair would be armed now. */
int
mv_fork_selftest_scan_bit(int on)
{
    selftest_scan_bit = on;
    return mvgo_fork_repair_armed();
}

/* mv_fork_selftest_child_finds makes each forked child find, at the fork, the
 * heap's lock held (1), or leaves the child to find what the fork left (0);
 * returns whether the heap's lock word is known. For the test build. */
int
mv_fork_selftest_child_finds(int what)
{
    selftest_child_finds = what;
    if (what == 1)
        return mvgo_fork_heap_lock_known();
    return 1;
}

int
mv_go_usable(void)
{
    return !go_unusable;
}

int
mv_check_go(void)
{
    if (!go_unusable)
        return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "memview: this process was forked while Go code was still running in another "
                    "thread of its parent, so memview's Go runtime cannot be used here; arrays "
                    "inherited from the parent can still be read and written through the buffer "
                    "protocol. Start worker processes with the 'spawn' or 'forkserver' method "
                    "(multiprocessing.get_context('spawn')) to use memview in them fully");
    return -1;
}
