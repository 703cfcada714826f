/*
 * ops_host.c — memview's own host copies done in C: strided copies and fills
 * with NumPy's broadcasting, overlap-safe (the assignments of ops_assign.c and
 * copy() use them, and a forked child, where no Go may run, for everything
 * else), arrays over memory another library lent, and the streamed copies of
 * large dense runs. The rules are the Go core's (memview/copy.go: CopyInto,
 * Copy's orders, FillBytes); the fork tests check each against the parent's
 * results.
 *
 * No function here needs the GIL; the callers release it for long work.
 */
#include "ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the copy and fill loops vectorise (clang does at -O2) */
#endif

/* ---- strided copies ---- */

/* A copy's loop: the axes left once axes of length 1 are dropped and axes that
 * walk both operands as one are merged, outermost first. */
typedef struct {
    int nd;
    Py_ssize_t n[MV_MAXDIM], d[MV_MAXDIM], s[MV_MAXDIM];
} loop;

static void
make_loop(loop *l, int nd, const Py_ssize_t *shape, const Py_ssize_t *ds, const Py_ssize_t *ss)
{
    l->nd = 0;
    for (int k = 0; k < nd; k++) {
        if (shape[k] == 1)
            continue;
        int j = l->nd - 1;
        if (j >= 0 && l->d[j] == ds[k] * shape[k] && l->s[j] == ss[k] * shape[k]) {
            l->n[j] *= shape[k]; /* the outer axis steps over the whole inner one */
            l->d[j] = ds[k];
            l->s[j] = ss[k];
            continue;
        }
        l->n[l->nd] = shape[k];
        l->d[l->nd] = ds[k];
        l->s[l->nd] = ss[k];
        l->nd++;
    }
}

/* FILL_RUN: n items of type T, one after another at d, set to the item at s */
#define FILL_RUN(T)                                                                                              \
    do {                                                                                                         \
        T v;                                                                                                     \
        memcpy(&v, s, sizeof v);                                                                                 \
        for (Py_ssize_t i = 0; i < n; i++)                                                                       \
            memcpy(d + i * (Py_ssize_t)sizeof v, &v, sizeof v);                                                  \
    } while (0)

static void
copy_run(char *d, Py_ssize_t dstep, const char *s, Py_ssize_t sstep, Py_ssize_t n, Py_ssize_t itemsize)
{
    if (dstep == itemsize && sstep == itemsize) {
        memcpy(d, s, (size_t)(n * itemsize));
        return;
    }
    if (sstep == 0 && dstep == itemsize) { /* a fill of dense items */
        switch (itemsize) {
        case 1:
            memset(d, *s, (size_t)n);
            return;
        case 2:
            FILL_RUN(uint16_t);
            return;
        case 4:
            FILL_RUN(uint32_t);
            return;
        case 8:
            FILL_RUN(uint64_t);
            return;
        }
    }
    switch (itemsize) {
    case 1:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            *d = *s;
        return;
    case 2:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            memcpy(d, s, 2);
        return;
    case 4:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            memcpy(d, s, 4);
        return;
    case 8:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            memcpy(d, s, 8);
        return;
    case 16:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            memcpy(d, s, 16);
        return;
    default:
        for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
            memcpy(d, s, (size_t)itemsize);
    }
}

/* copy_strided copies every item of shape from s (strides ss) to d (strides ds);
 * the two must not overlap. */
static void
copy_strided(char *d, const Py_ssize_t *ds, const char *s, const Py_ssize_t *ss, const Py_ssize_t *shape, int nd,
             Py_ssize_t itemsize)
{
    for (int k = 0; k < nd; k++)
        if (shape[k] == 0)
            return;
    loop l;
    make_loop(&l, nd, shape, ds, ss);
    if (l.nd == 0) {
        memcpy(d, s, (size_t)itemsize);
        return;
    }
    int in = l.nd - 1;
    Py_ssize_t idx[MV_MAXDIM] = {0};
    for (;;) {
        copy_run(d, l.d[in], s, l.s[in], l.n[in], itemsize);
        int k = in - 1;
        for (; k >= 0; k--) {
            d += l.d[k];
            s += l.s[k];
            if (++idx[k] < l.n[k])
                break;
            d -= l.d[k] * l.n[k];
            s -= l.s[k] * l.n[k];
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

void
mv_host_copy(char *d, const Py_ssize_t *ds, const char *s, const Py_ssize_t *ss, const Py_ssize_t *shape, int nd,
             Py_ssize_t itemsize, const int64_t *runs)
{
    if (runs == NULL) {
        copy_strided(d, ds, s, ss, shape, nd, itemsize);
        return;
    }
    for (int64_t k = 0; k < runs[0]; k++)
        copy_strided(d + runs[1 + 2 * k], ds, s + runs[1 + 2 * k], ss, shape, nd, (Py_ssize_t)runs[2 + 2 * k]);
}

/* ---- large copies: streaming stores ---- */

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif
#include <unistd.h>

Py_ssize_t
mv_stream_min(void)
{
    /* what glibc's memcpy streams from (3/4 of the last-level cache), at least
     * 32 MiB: a copy that large would not stay in the cache anyway. Callers
     * hold the GIL, which orders the one write. */
    static Py_ssize_t min;
    if (min == 0) {
        Py_ssize_t l3 = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
        long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
        l3 = v > 0 ? (Py_ssize_t)v : 0;
#endif
        Py_ssize_t t = l3 / 4 * 3;
        min = t > ((Py_ssize_t)32 << 20) ? t : ((Py_ssize_t)32 << 20);
    }
    return min;
}

void
mv_copy_stream(char *d, const char *s, size_t n)
{
#if defined(__x86_64__) || defined(_M_X64)
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_stream_si128((__m128i *)(void *)(d + i), a);
        _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
    _mm_sfence(); /* the streamed stores are ordered before what follows */
    memcpy(d + i, s + i, n - i);
#else
    memcpy(d, s, n);
#endif
}

/* reach sets [*lo, *hi) to the bytes a layout's items reach, relative to item 0. */
static void
reach(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, Py_ssize_t itemsize, Py_ssize_t *lo,
      Py_ssize_t *hi)
{
    *lo = 0;
    *hi = itemsize;
    for (int k = 0; k < nd; k++) {
        Py_ssize_t e = strides[k] * (shape[k] - 1);
        if (e < 0)
            *lo += e;
        else
            *hi += e;
    }
}

/* mv_host_assign copies src (strides ss, 0 on broadcast axes) into dst of shape
 * as if through a temporary (CopyInto's rule), only the field bytes of runs;
 * -1 with MemoryError when the temporary cannot be had. */
int
mv_host_assign(char *dst, const Py_ssize_t *ds, const char *src, const Py_ssize_t *ss, const Py_ssize_t *shape,
               int nd, Py_ssize_t itemsize, const int64_t *runs)
{
    Py_ssize_t count = 1;
    for (int k = 0; k < nd; k++)
        count *= shape[k];
    if (count == 0)
        return 0;
    Py_ssize_t dlo, dhi, slo, shi;
    reach(nd, shape, ds, itemsize, &dlo, &dhi);
    reach(nd, shape, ss, itemsize, &slo, &shi);
    int overlap = dst + dhi > src + slo && src + shi > dst + dlo;
    if (!overlap) {
        mv_host_copy(dst, ds, src, ss, shape, nd, itemsize, runs);
        return 0;
    }
    int same = dst == src;
    for (int k = 0; same && k < nd; k++)
        same = ds[k] == ss[k] || shape[k] == 1;
    if (same)
        return 0; /* every item onto itself */
    /* Gather the distinct items of src (length 1 on its broadcast axes) into a
     * C-ordered temporary, then copy from there. */
    Py_ssize_t tshape[MV_MAXDIM], tread[MV_MAXDIM], tstride[MV_MAXDIM], n = itemsize;
    for (int k = nd - 1; k >= 0; k--) {
        tshape[k] = ss[k] == 0 ? 1 : shape[k];
        tstride[k] = n;
        tread[k] = tshape[k] == 1 ? 0 : n;
        n *= tshape[k];
    }
    int mapped = n >= (1 << 20);
    char *t = mapped ? mv_child_map(n) : PyMem_Malloc((size_t)n);
    if (t == NULL) {
        if (!mapped)
            PyErr_NoMemory();
        return -1;
    }
    copy_strided(t, tstride, src, ss, tshape, nd, itemsize);
    mv_host_copy(dst, ds, t, tread, shape, nd, itemsize, runs);
    if (mapped)
        mv_child_unmap(t, n);
    else
        PyMem_Free(t);
    return 0;
}

void
mv_shape_text(char *out, int nd, const Py_ssize_t *shape)
{
    size_t n = 0;
    out[n++] = '(';
    for (int k = 0; k < nd && n < MV_SHAPE_TEXT - 24; k++)
        n += (size_t)PyOS_snprintf(out + n, MV_SHAPE_TEXT - n, k + 1 < nd ? "%zd," : "%zd", shape[k]);
    PyOS_snprintf(out + n, MV_SHAPE_TEXT - n, nd == 1 ? ",)" : ")");
}

/* mv_host_broadcast sets out to strides that read a layout (nd, shape,
 * strides) as an array of dshape (dnd axes), NumPy style; -1 with ValueError
 * when it does not broadcast (CopyInto's rule). */
int
mv_host_broadcast(int nd, const Py_ssize_t *shape, const Py_ssize_t *strides, int dnd, const Py_ssize_t *dshape,
                  Py_ssize_t *out)
{
    int skip = 0;
    while (nd - skip > dnd && shape[skip] == 1)
        skip++;
    int ok = nd - skip <= dnd, lead = dnd - (nd - skip);
    for (int k = 0; ok && k < dnd; k++) {
        if (k < lead) {
            out[k] = 0;
            continue;
        }
        Py_ssize_t n = shape[skip + k - lead];
        if (n == dshape[k])
            out[k] = strides[skip + k - lead];
        else if (n == 1)
            out[k] = 0;
        else
            ok = 0;
    }
    if (ok)
        return 0;
    char from[MV_SHAPE_TEXT], into[MV_SHAPE_TEXT];
    mv_shape_text(from, nd, shape);
    mv_shape_text(into, dnd, dshape);
    PyErr_Format(PyExc_ValueError, "memview: could not broadcast input array from shape %s into shape %s", from,
                 into);
    return -1;
}

/* mv_host_order_strides sets strides to those of a dense copy of a in order
 * 'C', 'F', 'A' or 'K' (Copy's orders); -1 with ValueError for another. */
int
mv_host_order_strides(const MVArray *a, char order, Py_ssize_t *strides)
{
    int nd = a->ndim, perm[MV_MAXDIM];
    if (order == 'A')
        order = a->f_contig && !a->c_contig ? 'F' : 'C';
    else if (order == 'K' && (nd <= 1 || a->c_contig))
        order = 'C';
    else if (order == 'K' && a->f_contig)
        order = 'F';
    for (int k = 0; k < nd; k++)
        perm[k] = order == 'F' ? nd - 1 - k : k; /* slowest first */
    if (order == 'K') {
        /* stable insertion sort by decreasing |stride| */
        for (int i = 1; i < nd; i++) {
            int ax = perm[i], j = i;
            Py_ssize_t s = a->strides[ax] < 0 ? -a->strides[ax] : a->strides[ax];
            for (; j > 0; j--) {
                Py_ssize_t t = a->strides[perm[j - 1]];
                if ((t < 0 ? -t : t) >= s)
                    break;
                perm[j] = perm[j - 1];
            }
            perm[j] = ax;
        }
    } else if (order != 'C' && order != 'F') {
        PyErr_Format(PyExc_ValueError, "memview: copy order '%c': want 'C', 'F', 'A' or 'K'", order);
        return -1;
    }
    Py_ssize_t sd = a->itemsize;
    for (int k = nd - 1; k >= 0; k--) {
        strides[perm[k]] = sd;
        sd *= a->shape[perm[k]];
    }
    return 0;
}

/* ---- foreign memory a forked child imports (from_arrow) ----
 *
 * A keeper owns what another library lent (an mv_foreign token, foreign.h) and
 * exports its bytes through the buffer protocol, so that an array imports them
 * as from any exporter (ops_import.c) and the token is released, once, with
 * the GIL, when the last buffer of it is gone. */
typedef struct {
    PyObject_HEAD
    mv_foreign *token;
    void *data;
    Py_ssize_t nbytes;
    Py_ssize_t one;
} foreign_keeper;

static PyTypeObject *foreign_keeper_type;

static void
foreign_keeper_dealloc(PyObject *self)
{
    foreign_keeper *k = (foreign_keeper *)self;
    if (k->token != NULL)
        k->token->release(k->token);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

static int
foreign_keeper_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    foreign_keeper *k = (foreign_keeper *)self;
    return PyBuffer_FillInfo(view, self, k->data, k->nbytes, 1, flags);
}

static PyType_Slot foreign_keeper_slots[] = {
    {Py_tp_dealloc, foreign_keeper_dealloc},
    {Py_bf_getbuffer, foreign_keeper_getbuffer},
    {0, NULL},
};

static PyType_Spec foreign_keeper_spec = {
    .name = "memview._core._ForeignKeeper",
    .basicsize = sizeof(foreign_keeper),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = foreign_keeper_slots,
};

PyObject *
mv_child_import_foreign(PyObject *base, mv_foreign *token, void *data, int nd, const int64_t *shape,
                        Py_ssize_t itemsize, const char *format)
{
    if (foreign_keeper_type == NULL &&
        (foreign_keeper_type = (PyTypeObject *)PyType_FromSpec(&foreign_keeper_spec)) == NULL)
        return NULL;
    foreign_keeper *k = (foreign_keeper *)PyType_GenericAlloc(foreign_keeper_type, 0);
    if (k == NULL)
        return NULL;
    Py_ssize_t sh[MV_MAXDIM], n = itemsize;
    for (int i = 0; i < nd; i++)
        n *= (sh[i] = (Py_ssize_t)shape[i]);
    k->data = data;
    k->nbytes = n;
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    PyObject *a = NULL;
    if (view == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (PyObject_GetBuffer((PyObject *)k, view, PyBUF_SIMPLE) < 0) {
        PyMem_Free(view);
        goto fail;
    }
    a = mv_import_as(base, view, nd, sh, 'C', format, 1, PyBUF_SIMPLE);
    if (a == NULL) {
        PyBuffer_Release(view);
        PyMem_Free(view);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "memview: cannot import foreign memory of format %s", format);
        goto fail;
    }
    k->token = token; /* released when the array's buffer (the last reference) goes */
    Py_DECREF(k);
    return a;
fail:
    Py_DECREF(k); /* the token stays the caller's */
    return NULL;
}

/* ---- C-level views ---- */

PyObject *
mv_view_of(MVArray *p, const mv_layout *l)
{
    mv_desc d = {
        .buf = p->buf + l->offset,
        .ndim = l->ndim,
        .shape = l->shape,
        .strides = l->strides,
        .readonly = p->readonly,
        .base = p->base ? p->base : (PyObject *)p,
        .like = p, /* the items, the device, the memory's shared pending-stream word */
    };
    MVArray *v = mv_array_new(&d);
    if (v != NULL)
        mv_hold(v, p);
    return (PyObject *)v;
}
