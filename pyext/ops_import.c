/*
 * ops_import.c — mv.from_buffer without Go for the usual exporter: the
 * Py_buffer stays in the array object and the layout is checked here, with the
 * Go core's rules (pyext/imports.go: the item size the format gives, strides in
 * whole items, data aligned for the item, a layout that fits in 64 bits). The
 * item descriptor of each format is asked of Go once (the one cache, ops_dtype.c).
 *
 * The Py_buffer becomes the array's owner (mv_own_import, core_owner.c). Go
 * learns of the import only when Go code is handed the array
 * (mv_array_handle): Go then gets a Py_buffer of its own from the exporter,
 * with the same layout, and releases it when its last reference goes; the
 * owner keeps its own until no array uses it. Anything unusual — a format
 * Go refuses, a layout it would refuse, an exporter without shape — takes the
 * Go path (ops_go.c), which raises the error. DLPack imports of host tensors
 * come here too (proto_dlpack_import.c), with the tensor's keeper as the exporter.
 */
#include "ops.h"

/* format_info is what Go's DTypeFromFormat makes of an exporter's format (the
 * one cache, ops_dtype.c), or NULL (no exception) when Go refuses it. */
static const mv_item *
format_info(const char *format)
{
    size_t n = strlen(format);
    return n > 256 ? NULL : mv_ask(MV_ASK_IMPORT, format, (Py_ssize_t)n, 0);
}

/* import_as makes an array over view's memory (taking view) laid out as nd,
 * shape, strides (NULL: C-contiguous) with items of format, which must be
 * itemsize bytes (-1: what the format says). */
static PyObject *
import_as(PyObject *obj, Py_buffer *view, int nd, const Py_ssize_t *vshape, const Py_ssize_t *vstrides,
          const char *format, Py_ssize_t vitemsize, int readonly, int flags)
{
    if (nd < 0 || nd > MV_MAXDIM || (nd > 0 && vshape == NULL) || vitemsize == 0 || vitemsize < -1)
        return NULL;
    const mv_item *fi = format_info(format);
    if (fi == NULL || (vitemsize != -1 && fi->itemsize != vitemsize))
        return NULL;
    Py_ssize_t itemsize = fi->itemsize;
    Py_ssize_t strides[MV_MAXDIM];
    /* C-contiguous strides where the exporter gives none (NewLayout's rule) */
    Py_ssize_t sd = itemsize;
    for (int k = nd - 1; k >= 0; k--) {
        Py_ssize_t n = vshape[k];
        if (n < 0)
            return NULL;
        strides[k] = vstrides ? vstrides[k] : sd;
        if (n > 0 && __builtin_mul_overflow(sd, n, &sd))
            return NULL;
    }
    Py_ssize_t count = 1, imin = 0, imax = 0, bytes;
    Py_ssize_t mask = (itemsize & (itemsize - 1)) == 0 ? itemsize - 1 : -1; /* a power of two: no division */
    for (int k = 0; k < nd; k++) {
        Py_ssize_t n = vshape[k], d;
        if (mask >= 0 ? (strides[k] & mask) != 0 : strides[k] % itemsize != 0)
            return NULL;
        if (n == 0)
            continue;
        if (__builtin_mul_overflow(count, n, &count) || __builtin_mul_overflow(strides[k], n - 1, &d) ||
            d == PY_SSIZE_T_MIN)
            return NULL;
        if (d < 0 ? __builtin_add_overflow(imin, d, &imin) : __builtin_add_overflow(imax, d, &imax))
            return NULL;
    }
    if (__builtin_mul_overflow(count, itemsize, &bytes) || imax > PY_SSIZE_T_MAX - itemsize)
        return NULL;
    if ((uintptr_t)view->buf % (uintptr_t)fi->align != 0)
        return NULL;

    mv_desc d = {
        .buf = view->buf,
        .ndim = nd,
        .shape = vshape,
        .strides = strides,
        .itemsize = itemsize,
        .format = fi->format,
        .dtype = fi->dtype,
        .typestr = fi->typestr,
        .runs = fi->runs,
        .normal = fi->normal,
        .readonly = readonly,
        .device_kind = MV_DEV_CPU,
        .device = "cpu",
        .base = obj,
    };
    MVArray *a = mv_array_new(&d);
    if (a == NULL)
        return NULL;
    mv_own_import(a, view, flags); /* owned from here on */
    return (PyObject *)a;
}

PyObject *
mv_import_fast(PyObject *obj, Py_buffer *view, int readonly, int flags)
{
    return import_as(obj, view, view->ndim, view->shape, view->strides, view->format ? view->format : "B",
                     view->itemsize, readonly, flags);
}

PyObject *
mv_import_format(PyObject *obj, Py_buffer *view, const char *format, int readonly, int flags)
{
    return import_as(obj, view, view->ndim, view->shape, view->strides, format, view->itemsize, readonly, flags);
}

PyObject *
mv_import_as(PyObject *obj, Py_buffer *view, int nd, const Py_ssize_t *shape, char order, const char *format,
             int readonly, int flags)
{
    Py_ssize_t strides[MV_MAXDIM];
    if (order == 'F' && nd > 0) { /* Fortran order: the strides from the format's item size */
        const mv_item *fi = format_info(format);
        if (fi == NULL || nd > MV_MAXDIM)
            return NULL;
        Py_ssize_t sd = fi->itemsize;
        for (int k = 0; k < nd; k++) {
            strides[k] = sd;
            if (__builtin_mul_overflow(sd, shape[k] > 0 ? shape[k] : 1, &sd))
                return NULL;
        }
    }
    return import_as(obj, view, nd, shape, order == 'F' && nd > 0 ? strides : NULL, format, -1, readonly, flags);
}
