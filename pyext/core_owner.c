/*
 * core_owner.c — who owns the memory of memview's arrays, and every change of
 * that. Only this file moves memory into, between and out of owners; the rest
 * of pyext asks for a transition (mv_own_*, mv_hold, mv_array_handle,
 * mv_release) or reads the state (mv_released, mv_go_handle).
 *
 * The model is CPython's managed buffer (Objects/memoryobject.c): one owner
 * per piece of memory, shared by every array that uses it.
 *
 *   owner   an mv_owner, held inline by the array that took the memory (its
 *           host). Its kind says what it owns:
 *             GO      a Go *memview.Array handle (handles.go): memory Go
 *                     allocated, or wraps for a protocol or a gopy value;
 *             IMPORT  a Py_buffer taken in C from an exporter (ops_import.c,
 *                     pickles): the exporter's memory, lent while it is held;
 *             KEEPER  the same, from a DLPack keeper (proto_dlpack_import.c),
 *                     whose tensor's deleter runs when the keeper goes;
 *             BLOCK   a zero-filled block of the creation cache (core_blocks.c)
 *                     or, in a forked child, a mapping of the child's own
 *                     (core_child.c, block_gen 0).
 *   views   a view made in C (ops_views.c) is a new layout over the memory: it
 *           points to its parent's owner, counts in refs and holds a strong
 *           reference to the host, so the owner it points into stays. Views of
 *           views point to the same owner: the chain is one deep.
 *
 * Transitions:
 *
 *   made      mv_array_new gives an array with no owner (it reads as released);
 *             mv_own_go / mv_own_import / mv_own_block make its own owner,
 *             refs 1; mv_hold makes it a view of another's.
 *   released  release() (mv_release) or the array going (mv_owner_dealloc)
 *             lets go of its owner: owner = NULL, refs - 1. Python can
 *             release a host while views use its memory: the host reads as
 *             released and the memory stays until the last view lets go.
 *   given back  refs reaching 0 gives the memory back by kind (give_back):
 *             the Go handle released, the Py_buffer released, the block back
 *             to the cache. A forked child never enters Go (go_fork.c): what
 *             it inherited from Go stays until it exits.
 *   handed to Go  Go sees an array only through a handle (mv_array_handle).
 *             A BLOCK owner is adopted by Go and turns GO for good; an IMPORT
 *             or KEEPER owner gives Go a Py_buffer of its own, asked again
 *             from the exporter, and keeps the handle; a C-level view gets a
 *             Go view of the owner's handle, in its own layout. Handles made
 *             for imports and views are caches of the layout: when the call
 *             that made them fails they are given back (mv_raise ->
 *             mv_undo_fresh_handles), so a failed call leaves Go as it found
 *             it; the next call makes them again.
 *
 * The object's reference count is Python's; buffer exports (exports) and calls
 * working without the GIL (busy) pin an array: release() refuses while either
 * is set. Freeing CUDA memory may wait for the device, so it runs without the
 * GIL.
 */
#include "core.h"

#include <stddef.h>

/* host_of: the array that holds o inline. */
static inline MVArray *
host_of(mv_owner *o)
{
    return (MVArray *)((char *)o - offsetof(MVArray, own));
}

/* ---- handles made during a call ---- */

/* Handles made for C-level views and imports during a call that then fails
 * are given back (mv_undo_fresh_handles, from mv_raise and the slow paths): a
 * failed call leaves the Go side as it found it. Such a handle is a cache of
 * a layout, used by Go only during calls, so it can go whenever no call runs
 * on the array (busy == 0); the next Go call makes it again. */
#define NFRESH 16
static _Thread_local struct {
    MVArray *a; /* borrowed: removed by forget_fresh before the array lets go */
    uintptr_t h;
} fresh[NFRESH];
static _Thread_local int nfresh;

static void
forget_fresh(MVArray *a)
{
    for (int k = 0; k < nfresh; k++)
        if (fresh[k].a == a)
            fresh[k].a = NULL;
}

static void
record_fresh(MVArray *a, uintptr_t h)
{
    if (nfresh == NFRESH) { /* the oldest is kept for good */
        memmove(fresh, fresh + 1, (NFRESH - 1) * sizeof fresh[0]);
        nfresh--;
    }
    fresh[nfresh].a = a;
    fresh[nfresh++].h = h;
}

void
mv_undo_fresh_handles(void)
{
    int n = nfresh;
    nfresh = 0;
    for (int k = 0; k < n; k++) {
        MVArray *a = fresh[k].a;
        uintptr_t h = fresh[k].h;
        if (a == NULL || a->busy != 0)
            continue;
        if (a->handle == h) /* a C-level view's */
            a->handle = 0;
        else if (a->owner == &a->own && a->own.handle == h &&
                 (a->own.kind == MV_OWN_IMPORT || a->own.kind == MV_OWN_KEEPER))
            a->own.handle = 0;
        else
            continue;
        if (mv_go_usable())
            mv_go_release(h, NULL);
    }
}

PyObject *
mv_raise(const mv_err *e)
{
    mv_set_error(e);
    mv_undo_fresh_handles();
    return NULL;
}

/* ---- made ---- */

void
mv_own_go(MVArray *a, uintptr_t handle)
{
    a->own = (mv_owner){.kind = MV_OWN_GO, .refs = 1, .handle = handle};
    a->owner = &a->own;
}

PyTypeObject *mv_import_keeper_type;

void
mv_own_import(MVArray *a, Py_buffer *view, int flags)
{
    int keeper = view->obj != NULL && Py_TYPE(view->obj) == mv_import_keeper_type;
    a->own = (mv_owner){
        .kind = keeper ? MV_OWN_KEEPER : MV_OWN_IMPORT,
        .refs = 1,
        .import = view,
        .import_flags = flags,
    };
    a->owner = &a->own;
}

void
mv_own_block(MVArray *a, void *block, unsigned gen)
{
    a->own = (mv_owner){.kind = MV_OWN_BLOCK, .refs = 1, .block = block, .block_gen = gen};
    a->owner = &a->own;
}

void
mv_hold(MVArray *v, MVArray *p)
{
    mv_owner *o = p->owner;
    Py_INCREF((PyObject *)host_of(o));
    o->refs++;
    v->owner = o;
}

/* ---- handed to Go ---- */

/* same_layout: the exporter gave Go the buffer it gave the host. */
static int
same_layout(const Py_buffer *g, const MVArray *a, const Py_buffer *v)
{
    if (g->buf != v->buf || g->ndim != v->ndim || g->itemsize != v->itemsize ||
        (g->shape == NULL && g->ndim > 0))
        return 0;
    if (strcmp(g->format ? g->format : "B", v->format ? v->format : "B") != 0)
        return 0;
    for (int k = 0; k < g->ndim; k++) {
        if (g->shape[k] != a->shape[k])
            return 0;
        if ((g->strides ? g->strides[k] : a->strides[k]) != a->strides[k])
            return 0;
    }
    return 1;
}

/* import_handle gives Go the memory of an IMPORT or KEEPER owner: a Py_buffer
 * of Go's own, asked again from the exporter (the host's base, or the keeper),
 * in the host's layout. The new handle, or 0 with an exception. */
static uintptr_t
import_handle(mv_owner *o)
{
    if (mv_check_go() < 0)
        return 0;
    MVArray *a = host_of(o);
    Py_buffer *g = PyMem_Calloc(1, sizeof(Py_buffer));
    if (g == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    PyObject *src = o->kind == MV_OWN_KEEPER ? o->import->obj : a->base;
    if (PyObject_GetBuffer(src, g, o->import_flags) < 0) {
        PyMem_Free(g);
        return 0;
    }
    if (!same_layout(g, a, o->import)) {
        PyBuffer_Release(g);
        PyMem_Free(g);
        PyErr_SetString(PyExc_BufferError, "memview: the exporter changed its buffer since the import");
        return 0;
    }
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    mv_layout_int64(a, shape, strides);
    mv_meta m;
    mv_err e;
    if (mv_go_import(g->buf, a->ndim, shape, strides, a->itemsize, g->format ? g->format : "B", a->readonly, g,
                    &m, &e) != 0) {
        PyBuffer_Release(g); /* Go did not take it */
        PyMem_Free(g);
        mv_raise(&e);
        return 0;
    }
    free(m.long_format);
    free(m.long_dtype);
    return m.handle;
}

/* owner_handle: the owner's Go array, made now for a block (Go adopts it: the
 * owner is GO from then on, kept when the call fails — the memory is the same,
 * counted by the pool as before, and mv.live_handles() leaves adopted blocks
 * out) or an import (a cache, given back when the call fails); 0 with an
 * exception. */
static uintptr_t
owner_handle(mv_owner *o)
{
    if (o->handle != 0)
        return o->handle;
    MVArray *host = host_of(o);
    switch (o->kind) {
    case MV_OWN_BLOCK: {
        uintptr_t h = mv_block_adopt(host, o->block);
        if (h != 0) {
            o->kind = MV_OWN_GO;
            o->handle = h;
            o->block = NULL;
        }
        return h;
    }
    case MV_OWN_IMPORT:
    case MV_OWN_KEEPER: {
        uintptr_t h = import_handle(o);
        if (h != 0) {
            o->handle = h;
            record_fresh(host, h);
        }
        return h;
    }
    default:
        PyErr_SetString(PyExc_SystemError, "memview: an array's owner has no memory");
        return 0;
    }
}

uintptr_t
mv_array_handle(MVArray *a)
{
    mv_owner *o = a->owner;
    if (o == NULL) {
        mv_check_live(a);
        return 0;
    }
    if (a->handle != 0)
        return a->handle;
    if (o->handle == 0 && mv_check_go() < 0)
        return 0;
    uintptr_t root = owner_handle(o);
    if (root == 0 || o == &a->own)
        return root;
    /* a C-level view: a Go view of the owner's array, in the view's layout */
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    mv_layout_int64(a, shape, strides);
    uintptr_t out = 0;
    mv_err e;
    if (mv_go_layout_view(root, (int64_t)(a->buf - host_of(o)->buf), a->ndim, shape, strides, a->format,
                          a->readonly, &out, &e) != 0) {
        mv_raise(&e);
        return 0;
    }
    a->handle = out;
    record_fresh(a, out);
    return out;
}

/* ---- released and given back ---- */

/* go_release gives Go back handle h of an array on device kind dev: freeing
 * CUDA memory may wait for the device (a stream's Python host function needs
 * the GIL meanwhile). A forked child never enters Go: the handle, and the
 * parent's memory it names, stay until the child exits. */
static int
go_release(uintptr_t h, int dev, mv_err *e)
{
    int rc = 0;
    if (h != 0 && mv_go_usable())
        NOGIL(dev != MV_DEV_CPU, rc = mv_go_release(h, e));
    return rc;
}

/* give_back gives back the memory of o, which no array uses any more, by its
 * kind: 0, or -1 with *e set when Go failed to free it (e may be NULL). */
static int
give_back(mv_owner *o, mv_err *e)
{
    MVArray *host = host_of(o);
    if (o->handle != 0)
        forget_fresh(host); /* an import's handle goes now */
    int rc = go_release(o->handle, host->device_kind, e);
    if (o->import != NULL) {
        PyBuffer_Release(o->import);
        PyMem_Free(o->import);
    }
    if (o->block != NULL)
        mv_block_give(o->block, host->len, o->block_gen);
    *o = (mv_owner){.kind = MV_OWN_NONE};
    return rc;
}

/* let_go: a lets go of its owner and, for a view, of its own Go view and its
 * reference to the host. The host may go with the reference. */
static int
let_go(MVArray *a, mv_err *e)
{
    mv_owner *o = a->owner;
    /* only an array with a handle can be in the list of fresh ones: undoing
     * them empties it, and letting go of one forgets it */
    if (a->handle != 0 || a->own.handle != 0)
        forget_fresh(a);
    uintptr_t h = a->handle;
    a->handle = 0;
    int rc = go_release(h, a->device_kind, e);
    if (o == NULL)
        return rc;
    a->owner = NULL;
    MVArray *host = host_of(o);
    if (--o->refs == 0 && give_back(o, rc == 0 ? e : NULL) != 0)
        rc = -1;
    if (host != a)
        Py_DECREF((PyObject *)host);
    return rc;
}

int
mv_release(MVArray *a)
{
    mv_err e;
    if (let_go(a, &e) != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

void
mv_owner_dealloc(MVArray *a)
{
    /* the usual small array: a cached block, no view of it left */
    if (a->owner == &a->own && a->own.kind == MV_OWN_BLOCK && a->own.refs == 1 && a->handle == 0) {
        a->owner = NULL;
        a->own.kind = MV_OWN_NONE;
        mv_block_give(a->own.block, a->len, a->own.block_gen);
        return;
    }
    let_go(a, NULL);
}
