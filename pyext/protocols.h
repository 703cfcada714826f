/*
 * protocols.h — what the exchange-protocol files (dlpack.c, arrow.c,
 * array_interface.c, protocols.c) share: keeping an array alive for a foreign
 * consumer, and giving it back from any thread, at any time, even while the
 * interpreter shuts down.
 */
#ifndef MEMVIEW_PROTOCOLS_H
#define MEMVIEW_PROTOCOLS_H

#include <stdio.h>
#include <stdlib.h>

#include "capi.h"
#include "dlpack.h"

/* mv_lend records that a foreign consumer (a DLPack tensor, an Arrow array)
 * holds the array: a strong reference and one export, so release() is refused
 * meanwhile. Call with the GIL. */
void mv_lend(MVArray *a);

/* mv_unlend gives a lent array back: takes the GIL (any thread may call it),
 * drops the export and the reference. Once the interpreter is finalizing, a
 * thread Python does not know leaks the reference instead of waiting for a GIL
 * that will never come; after finalization everything is leaked. */
void mv_unlend(PyObject *owner);

/* mv_host_wait blocks until the CUDA work pending on host-visible memory
 * (pinned or managed) is done, before a CPU consumer, which cannot wait on a
 * stream, reads it. 0, or -1 with an exception. */
int mv_host_wait(MVArray *a);

/* The DLPack device of an array's memory. */
DLDevice mv_dl_device(const MVArray *a);

/* mv_dl_device_name writes memview's name of a DLPack device ("cpu", "cuda:1",
 * "cuda_host", "cuda_managed:0") into out; -1 with BufferError for a device
 * memview has no memory for. */
int mv_dl_device_name(DLDevice d, char *out, size_t n);

/* Module-level functions each protocol adds to memview._core. */
extern PyMethodDef mv_dlpack_functions[];
extern PyMethodDef mv_arrow_functions[];
extern PyMethodDef mv_pickle_functions[];

/* Type methods, gathered into mv_protocol_methods by protocols.c. */
PyObject *mv_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mv_array_dlpack_device(PyObject *self, PyObject *unused);
PyObject *mv_array_arrow_schema(PyObject *self, PyObject *unused);
PyObject *mv_array_arrow_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mv_array_arrow_device_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* dlpack.c: the exchange table capsule (set on the array type by protocols.c). */
PyObject *mv_dlpack_exchange_capsule(void);

/* dlpack_import.c: mv_dl_import_host makes an array over a host (kDLCPU)
 * tensor without Go, taking the tensor (its deleter runs exactly once, with the
 * GIL, when nothing uses the memory any more); base is what the array reports
 * as its base (may be NULL). NULL without an exception for a tensor it leaves
 * to the Go path, NULL with one for a failure of its own (out of memory): the
 * tensor is still the caller's then. */
PyObject *mv_dl_import_host(void *tensor, int versioned, const DLTensor *dl, int readonly, PyObject *base);

/* mv_new_from_meta wraps a Go result: mv_raise on rc != 0, else a new array. */
PyObject *mv_finish_meta(int rc, const mv_meta *m, const mv_err *e, PyObject *base);

/* Keyword parsing for METH_FASTCALL|METH_KEYWORDS methods: names[i] (interned
 * str, see mv_intern) is matched against kwnames; values[i] is set (borrowed)
 * or left NULL. Positional arguments fill values in order, up to npos. -1 with
 * TypeError on anything else. */
int mv_parse_kwargs(const char *who, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    PyObject *const *names, int nnames, int npos, PyObject **values);

/* mv_intern fills out[i] with interned str objects of names[i] (kept for the
 * life of the process). -1 on failure. */
int mv_intern(const char *const *names, int n, PyObject **out);

#endif
