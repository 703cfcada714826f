/*
 * core_blocks.c — the creation cache: memory for small host arrays, asked of Go in
 * batches and reused, so that making an array (ops_create.c) calls no Go.
 *
 * A block is a zero-filled allocation of the default pool, lent by Go
 * (pyext/blocks.go) and held there by address. The cache keeps up to NPER
 * free blocks of each of NCLASS sizes (exact byte counts, as the pool counts
 * them), at most CACHE_BYTES in all; an array made from a block gives it back
 * when it goes, and a block coming back dirty is zeroed when it is handed out
 * again. Blocks the cache cannot keep are given back to Go in batches.
 *
 * Statistics: mv_blocks_flush gives every free block back and tells Go how
 * many blocks (and bytes) were handed out since the last flush, so that the
 * pool's counters say what the users were handed. It runs before any pool
 * statistics are read from Python and whenever the default pool changes.
 * Between flushes, the pool counts the free blocks of the cache as live.
 *
 * Everything here runs with the GIL held.
 */
#include "core.h"

#define NCLASS 16
#define NPER 16
#define NPENDING 32
#define CACHE_BYTES (1 << 20)

typedef struct {
    Py_ssize_t nbytes; /* 0: the class is unused */
    int n;
    void *ptr[NPER];
    unsigned char dirty[NPER];
    uint64_t used; /* the tick of its last use (the least recently used class goes first) */
} blk_class;

static blk_class classes[NCLASS];
static Py_ssize_t cached_bytes;
static uint64_t tick;
static uintptr_t pending[NPENDING]; /* blocks to give back to Go (addresses as words: blocks.go) */
static int npending;
static int64_t handed_n, handed_bytes; /* handed out since the last flush */
unsigned mv_block_gen = 1;            /* changes with the default pool */
static int cache_off;                 /* the default pool is one the cache does not serve */

static void
give_back_pending(void)
{
    if (npending == 0)
        return;
    if (mv_go_usable())
        mv_go_blocks_put(pending, npending);
    /* in a child where Go may not run, the blocks stay the pool's (as the
     * handles of arrays do there) */
    npending = 0;
}

static void
to_pending(void *p)
{
    if (npending == NPENDING)
        give_back_pending();
    pending[npending++] = (uintptr_t)p;
}

static void
drop_class(blk_class *c)
{
    for (int k = 0; k < c->n; k++)
        to_pending(c->ptr[k]);
    cached_bytes -= c->n * c->nbytes;
    c->n = 0;
    c->nbytes = 0;
}

static blk_class *
find_class(Py_ssize_t nbytes)
{
    for (int k = 0; k < NCLASS; k++)
        if (classes[k].nbytes == nbytes)
            return &classes[k];
    return NULL;
}

/* claim_class returns a class for nbytes, taking an unused one or the least
 * recently used (whose blocks go back to Go). */
static blk_class *
claim_class(Py_ssize_t nbytes)
{
    blk_class *victim = &classes[0];
    for (int k = 0; k < NCLASS; k++) {
        if (classes[k].nbytes == 0) {
            victim = &classes[k];
            break;
        }
        if (classes[k].used < victim->used)
            victim = &classes[k];
    }
    if (victim->nbytes != 0)
        drop_class(victim);
    victim->nbytes = nbytes;
    victim->used = ++tick;
    return victim;
}

int
mv_blocks_flush(void)
{
    for (int k = 0; k < NCLASS; k++)
        if (classes[k].nbytes != 0)
            drop_class(&classes[k]);
    give_back_pending();
    if (mv_go_usable())
        mv_go_blocks_sync(handed_n, handed_bytes);
    handed_n = handed_bytes = 0;
    return 0;
}

void
mv_blocks_pool_changed(void)
{
    mv_blocks_flush();
    if (++mv_block_gen == 0) /* 0 marks a forked child's own mappings */
        mv_block_gen = 1;
    cache_off = 0;
}

void *
mv_block_take(Py_ssize_t nbytes, int zero)
{
    if (nbytes <= 0 || nbytes > MV_BLOCK_MAX)
        return NULL;
    blk_class *c = find_class(nbytes);
    if (c != NULL && c->n > 0) {
        int k = --c->n;
        void *p = c->ptr[k];
        if (c->dirty[k] && zero)
            memset(p, 0, (size_t)nbytes);
        cached_bytes -= nbytes;
        c->used = ++tick;
        handed_n++;
        handed_bytes += (nbytes + 63) & ~(Py_ssize_t)63; /* as the pool counts it */
        return p;
    }
    if (!mv_go_usable())
        return NULL; /* the caller's Go path raises */
    /* A batch: a few blocks of small sizes, fewer of larger ones. */
    int want = (int)(32768 / nbytes);
    want = want < 1 ? 1 : want > 8 ? 8 : want;
    uintptr_t got[8] = {0};
    mv_err e;
    if (cache_off || !mv_go_usable())
        return NULL;
    int n = mv_go_blocks_get(nbytes, want, got, &e);
    if (n == -2) {
        /* the default pool changed under the cache (Go code chose another) */
        mv_blocks_pool_changed();
        n = mv_go_blocks_get(nbytes, want, got, &e);
        c = NULL;
    }
    if (n == 0 || n == -2) {
        /* a pool the cache does not serve: arrays are made through Go (one
         * allocation each, as a checked or logging pool records them) until
         * the default pool changes */
        cache_off = 1;
        return NULL;
    }
    if (n < 0) {
        mv_set_error(&e);
        return NULL;
    }
    if (n > 1) {
        if (c == NULL)
            c = claim_class(nbytes);
        for (int k = 1; k < n; k++) {
            if (c->n < NPER && cached_bytes + nbytes <= CACHE_BYTES) {
                c->ptr[c->n] = (void *)got[k];
                c->dirty[c->n++] = 0;
                cached_bytes += nbytes;
            } else {
                to_pending((void *)got[k]);
            }
        }
    }
    handed_n++;
    handed_bytes += (nbytes + 63) & ~(Py_ssize_t)63;
    return (void *)got[0];
}

void
mv_block_give(void *p, Py_ssize_t nbytes, unsigned gen)
{
    if (p == NULL)
        return;
    if (gen == 0) { /* a mapping of a forked child's own (ops_create.c) */
        mv_child_unmap(p, nbytes);
        return;
    }
    if (gen == mv_block_gen && cached_bytes + nbytes <= CACHE_BYTES) {
        blk_class *c = find_class(nbytes);
        if (c == NULL)
            c = claim_class(nbytes);
        if (c->n < NPER) {
            c->ptr[c->n] = p;
            c->dirty[c->n++] = 1;
            cached_bytes += nbytes;
            return;
        }
    }
    to_pending(p);
}

uintptr_t
mv_block_adopt(MVArray *a, void *block)
{
    if (mv_check_go() < 0)
        return 0;
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    mv_layout_int64(a, shape, strides);
    uintptr_t h = 0;
    mv_err e;
    if (mv_go_block_adopt(block, a->dtype, a->format, a->ndim, shape, strides, &h, &e) != 0) {
        mv_set_error(&e);
        return 0;
    }
    return h;
}

/* blocks_stats() -> (cached blocks, cached bytes, blocks Go has lent and not
 * had back): the cache's state, for tests */
static PyObject *
blocks_stats(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    long long n = 0;
    for (int k = 0; k < NCLASS; k++)
        n += classes[k].n;
    long long lent = mv_go_usable() ? (long long)mv_go_blocks_lent() : -1;
    return Py_BuildValue("(LnL)", n, cached_bytes, lent);
}

/* blocks_flush(): give every free block back to the pool and settle its counts */
static PyObject *
blocks_flush(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    mv_blocks_flush();
    Py_RETURN_NONE;
}

PyMethodDef mv_block_functions[] = {
    {"blocks_stats", blocks_stats, METH_NOARGS,
     "blocks_stats() -> (cached blocks, cached bytes, blocks lent by Go): the creation cache"},
    {"blocks_flush", blocks_flush, METH_NOARGS,
     "blocks_flush(): give the creation cache's free blocks back to the pool"},
    {NULL},
};
