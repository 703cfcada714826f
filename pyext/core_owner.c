/*
 * core_owner.c — how a memview array owns its memory, and every change of
 * that ownership. Only this file moves memory between the states below; the
 * rest of pyext reads them (mv_released) or asks for a transition.
 *
 * An array object (MVArray) holds its memory in exactly one of four ways:
 *
 *   handle  a Go *memview.Array (handles.go) — memory Go allocated or wrapped;
 *   import  a Py_buffer taken from an exporter in C (ops_import.c, pickles,
 *           DLPack keepers): the exporter's memory, released with the array;
 *   block   a block of the creation cache (core_blocks.c) or, in a forked
 *           child, a mapping of the child's own (core_child.c);
 *   hold    a strong reference to the array whose memory this view uses: a
 *           view made in C (ops_views.c) is a new layout over its root's memory.
 *
 * A root counts the C-level views that hold it (cviews). Python can release()
 * a root while views use its memory: its handle, import or block then moves to
 * its kept twin (kept, kept_import, kept_block) — the root reads as released,
 * the memory stays — and the last view to go (mv_drop_hold) gives it back.
 * Views of views hold the root, never each other, so the chain is one deep.
 *
 * Go sees an array only through a handle. mv_array_handle makes one when Go
 * code needs an array that has none: a block is adopted by Go (the array is
 * Go's from then on); an import gives Go a Py_buffer of its own; a C-level
 * view gets a Go view of its root's handle (made first if the root has none).
 * Handles made for imports and views are caches of the layout: when the call
 * that made them fails they are given back (mv_raise -> mv_undo_fresh_handles),
 * so a failed call leaves Go as it found it; the next call makes them again.
 *
 * The object's reference count is Python's; buffer exports (exports) and calls
 * working without the GIL (busy) pin the memory: release() refuses while either
 * is set. Freeing CUDA memory may wait for the device, so it runs without the
 * GIL. A forked child never gives Go anything back (go_fork.c): what it
 * inherited is reclaimed when it exits.
 */
#include "core.h"

/* Handles made for C-level views during a call that then fails are given back
 * (mv_undo_fresh_handles, from mv_raise and the slow paths): a failed call
 * leaves the Go side as it found it. The handle is a cache of the view's
 * layout, used by Go only during calls, so it can go whenever no call runs on
 * the array (busy == 0); the next Go call makes it again. */
#define NFRESH 16
static _Thread_local struct {
    MVArray *a; /* borrowed: removed by mv_forget_fresh before the array goes */
    uintptr_t h;
} fresh[NFRESH];
static _Thread_local int nfresh;

void
mv_forget_fresh(MVArray *a)
{
    for (int k = 0; k < nfresh; k++)
        if (fresh[k].a == a)
            fresh[k].a = NULL;
}

void
mv_undo_fresh_handles(void)
{
    int n = nfresh;
    nfresh = 0;
    for (int k = 0; k < n; k++) {
        MVArray *a = fresh[k].a;
        if (a != NULL && a->handle == fresh[k].h && (a->hold != NULL || a->import != NULL) && a->busy == 0) {
            a->handle = 0;
            if (mv_go_usable())
                mv_go_release(fresh[k].h, NULL);
        }
    }
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

/* root_handle: the handle of h, the array a C-level view holds (made now for
 * an import that Go has not seen); 0 with an exception. */
static uintptr_t
root_handle(MVArray *h)
{
    if (h->handle != 0)
        return h->handle;
    if (h->kept != 0)
        return h->kept;
    if (h->import != NULL || h->block != NULL)
        return mv_array_handle(h);
    if (h->kept_import != NULL) /* released while views use it: given back with them */
        return h->kept = mv_import_handle(h, h->kept_import);
    if (h->kept_block != NULL) { /* the same for a block: Go adopts it */
        if ((h->kept = mv_block_adopt(h, h->kept_block)) != 0)
            h->kept_block = NULL;
        return h->kept;
    }
    PyErr_SetString(PyExc_SystemError, "memview: a view's base array has no memory");
    return 0;
}

uintptr_t
mv_array_handle(MVArray *a)
{
    if (a->handle != 0)
        return a->handle;
    if (a->hold == NULL) {
        if (a->block != NULL) {
            /* Go adopts the block: the array is Go's from now on, as if Go
             * had made it (kept when the call fails: the memory is the same,
             * counted by the pool as before, and mv.live_handles() leaves
             * adopted blocks out) */
            uintptr_t h = mv_block_adopt(a, a->block);
            if (h != 0) {
                a->handle = h;
                a->block = NULL;
            }
            return h;
        }
        if (a->import == NULL) {
            mv_check_live(a);
            return 0;
        }
        if (mv_check_go() < 0)
            return 0;
        uintptr_t h = mv_import_handle(a, a->import);
        if (h != 0) {
            a->handle = h;
            record_fresh(a, h);
        }
        return h;
    }
    if (mv_check_go() < 0)
        return 0;
    MVArray *h = a->hold;
    uintptr_t root = root_handle(h);
    if (root == 0)
        return 0;
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    mv_layout_int64(a, shape, strides);
    uintptr_t out = 0;
    mv_err e;
    if (mv_go_layout_view(root, (int64_t)(a->buf - h->buf), a->ndim, shape, strides, a->readonly, &out, &e) != 0) {
        mv_raise(&e);
        return 0;
    }
    a->handle = out;
    record_fresh(a, out);
    return out;
}

void
mv_drop_hold(MVArray *a)
{
    MVArray *h = a->hold;
    if (h == NULL)
        return;
    a->hold = NULL;
    if (--h->cviews == 0 && h->kept != 0) {
        /* released while C-level views used its handle: give it back now */
        uintptr_t k = h->kept;
        h->kept = 0;
        if (mv_go_usable())
            NOGIL(h->device_kind != MV_DEV_CPU, mv_go_release(k, NULL));
    }
    if (h->cviews == 0) {
        mv_import_free(&h->kept_import);
        mv_block_drop(h, &h->kept_block);
    }
    Py_DECREF((PyObject *)h);
}


/* same_layout: the exporter gave Go the buffer it gave the array. */
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

PyTypeObject *mv_import_keeper_type;

uintptr_t
mv_import_handle(MVArray *a, Py_buffer *v)
{
    if (mv_check_go() < 0)
        return 0;
    Py_buffer *g = PyMem_Calloc(1, sizeof(Py_buffer));
    if (g == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    /* The exporter is the array's base, or for a DLPack import the tensor's
     * keeper (proto_dlpack_import.c), while the base is the producer. */
    PyObject *src = v->obj != NULL && Py_TYPE(v->obj) == mv_import_keeper_type ? v->obj : a->base;
    if (PyObject_GetBuffer(src, g, a->import_flags) < 0) {
        PyMem_Free(g);
        return 0;
    }
    if (!same_layout(g, a, v)) {
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

void
mv_import_free(Py_buffer **v)
{
    if (*v != NULL) {
        Py_buffer *b = *v;
        *v = NULL;
        PyBuffer_Release(b);
        PyMem_Free(b);
    }
}


PyObject *
mv_raise(const mv_err *e)
{
    mv_set_error(e);
    mv_undo_fresh_handles();
    return NULL;
}

void
mv_hold(MVArray *v, MVArray *p)
{
    MVArray *hold = p->hold ? p->hold : p;
    Py_INCREF((PyObject *)hold);
    hold->cviews++;
    v->hold = hold;
}

int
mv_release(MVArray *a)
{
    mv_err e;
    mv_forget_fresh(a);
    uintptr_t h = a->handle;
    a->handle = 0;
    int rc = 0;
    if (a->cviews > 0) {
        /* C-level views use this array's handle and import: they are given
         * back when the last of them goes (mv_drop_hold) */
        a->kept = h;
        h = 0;
        a->kept_import = a->import;
        a->import = NULL;
        a->kept_block = a->block;
        a->block = NULL;
    }
    mv_import_free(&a->import);
    mv_block_drop(a, &a->block);
    /* freeing CUDA memory may wait for the device; a forked child never gives Go
     * back what it inherited (go_fork.c): its exit reclaims it */
    if (h != 0 && mv_go_usable())
        NOGIL(a->device_kind != MV_DEV_CPU, rc = mv_go_release(h, &e));
    mv_drop_hold(a); /* a C-level view: its base array may go now */
    if (rc != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

void
mv_owner_dealloc(MVArray *a)
{
    if (a->block != NULL && a->hold == NULL && a->handle == 0 && a->kept_block == NULL) {
        mv_block_drop(a, &a->block); /* a cached block, the usual small array: nothing else is held */
        return;
    }
    mv_forget_fresh(a);
    if (a->handle != 0) {
        /* A forked child never enters Go (go_fork.c): the handle, and the
         * parent's memory it names, stay as they are until the child exits. */
        uintptr_t h = a->handle;
        a->handle = 0;
        /* freeing CUDA memory may wait for the device (a stream's Python host
         * function needs the GIL meanwhile) */
        if (mv_go_usable())
            NOGIL(a->device_kind != MV_DEV_CPU, mv_go_release(h, NULL));
    }
    if (a->kept != 0) { /* released while C-level views used it; they are gone now */
        uintptr_t h = a->kept;
        a->kept = 0;
        if (mv_go_usable())
            NOGIL(a->device_kind != MV_DEV_CPU, mv_go_release(h, NULL));
    }
    mv_drop_hold(a);
    mv_import_free(&a->import);
    mv_import_free(&a->kept_import);
    mv_block_drop(a, &a->block);
    mv_block_drop(a, &a->kept_block);
}
