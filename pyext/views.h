/*
 * views.h — what the C fast paths of memview's array type share: a layout
 * computed in C (view_layouts.c, the Go core's rules ported) and element reads
 * and writes (elements.c); views.c makes the array objects.
 */
#ifndef MEMVIEW_VIEWS_H
#define MEMVIEW_VIEWS_H

#include "capi.h"

/* A layout computed in C, relative to the array it was computed from. */
typedef struct {
    int ndim;
    Py_ssize_t offset; /* bytes from the parent's element 0 */
    Py_ssize_t shape[MV_MAXDIM];
    Py_ssize_t strides[MV_MAXDIM];
} mv_layout;

/* Each returns 1 with the layout in out, or 0 when the fast path leaves the
 * work to Go (other key or argument types, and every error: Go raises them).
 * mv_index_layout also says whether one element is selected; axes (transpose)
 * and shape (reshape) are a tuple or a list, axes NULL reverses. */
int mv_index_layout(const MVArray *a, PyObject *key, mv_layout *out, int *scalar);
int mv_transpose_layout(const MVArray *a, PyObject *axes, mv_layout *out);
int mv_reshape_layout(const MVArray *a, PyObject *shape, mv_layout *out);
/* C and F contiguity of l, as memview.Layout.CContiguous / FContiguous. */
void mv_layout_contiguity(const mv_layout *l, Py_ssize_t itemsize, int *c, int *f);

/* The element at p as a Python scalar (a->scalar must not be MV_SK_NONE). */
PyObject *mv_read_scalar(const MVArray *a, const char *p);
/* Stores value at p when it converts exactly as the facade would for the plain
 * cases: 1 written, 0 left to the facade. */
int mv_write_scalar(const MVArray *a, char *p, PyObject *value);

#endif
