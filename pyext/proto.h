/*
 * proto.h — the exchange protocols, one file per protocol and direction, and
 * what they share: keeping an array alive for a foreign consumer, and giving it
 * back from any thread, at any time, even while the interpreter shuts down.
 *
 *   proto_common.c           lending arrays, host waits, DLPack devices, Arrow's formats
 *   proto_array_interface.c  __array_interface__ (NumPy's v3)
 *   proto_dlpack_export.c    __dlpack__, __dlpack_device__
 *   proto_dlpack_from.c      from_dlpack: asking producers, the Go path
 *   proto_dlpack_import.c    a host tensor as an array without Go
 *   proto_dlpack_table.c     the C exchange table (__dlpack_c_exchange_api__)
 *   proto_arrow_export.c     __arrow_c_schema__, __arrow_c_array__, the device form
 *   proto_arrow_import.c     from_arrow
 *   proto_pickle.c           pickle 5 both ways, in and out of band
 *
 * The specifications' own structures are in dlpack.h and arrow_c.h.
 */
#ifndef MEMVIEW_PROTO_H
#define MEMVIEW_PROTO_H

#include <stdio.h>

#include "ops.h"
#include "arrow_c.h"
#include "dlpack.h"
#include "foreign.h"

/* ---- proto_common.c ---- */

/* mv_lend records that a foreign consumer (a DLPack tensor, an Arrow array)
 * holds the array: a strong reference and one export, so release() is refused
 * meanwhile. Call with the GIL. */
void mv_lend(MVArray *a);

/* mv_unlend gives a lent array back: takes the GIL (any thread may call it),
 * drops the export and the reference. Once the interpreter is finalizing, a
 * thread Python does not know leaks the reference instead of waiting for a GIL
 * that will never come; after finalization everything is leaked. */
void mv_unlend(PyObject *owner);

/* mv_arrow_format is the Arrow format of the items of a typestr ("<f8" -> "g"),
 * or NULL where Arrow has no primitive type of them; mv_arrow_basic is the basic
 * dtype of an Arrow primitive format, or NULL. */
const char *mv_arrow_format(const char *typestr);
const mv_basic *mv_arrow_basic(const char *format);

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

extern PyMethodDef mv_proto_functions[]; /* _interpreter_exiting */

/* ---- the array type's attributes and methods, and the module functions ---- */

extern PyGetSetDef mv_array_interface_getset[]; /* __array_interface__ */
extern PyMethodDef mv_dlpack_methods[];          /* __dlpack__, __dlpack_device__ */
extern PyMethodDef mv_arrow_methods[];           /* __arrow_c_schema__, __arrow_c_array__, ... */
extern PyMethodDef mv_dlpack_functions[];        /* from_dlpack */
extern PyMethodDef mv_arrow_functions[];         /* from_arrow */
extern PyMethodDef mv_pickle_functions[];        /* to_bytes, from_bytes, ... */

/* ---- DLPack, shared by the proto_dlpack_*.c files ---- */

/* proto_dlpack_export.c: mv_dl_refuse_dtype raises the BufferError for an
 * array DLPack cannot describe (dl_ok unset) and returns -1; mv_dl_fill_tensor
 * describes a in dl, on device dev; mv_dl_new_versioned makes a versioned
 * managed tensor (of minor version minor; copied: over a copy) lending a to it,
 * or NULL with an exception; its deleter gives a back. */
int mv_dl_refuse_dtype(const MVArray *a);
void mv_dl_fill_tensor(const MVArray *a, DLTensor *dl, DLDevice dev);
DLManagedTensorVersioned *mv_dl_new_versioned(MVArray *a, DLDevice dev, uint32_t minor, int copied);

/* proto_dlpack_from.c: a producer's tensor handed to Go is wrapped in a token,
 * whose release runs the tensor's deleter once (mv_dl_new_token: NULL with
 * MemoryError). mv_dl_import_go hands the tensor to Go and fills m; 0, or -1
 * with an exception, the tensor still the caller's. mv_dl_dtype_name writes
 * memview's name of a DLPack dtype; -1 with BufferError for one it lacks. The
 * init functions intern the names the export and import paths use. */
typedef struct {
    mv_foreign base;
    void *tensor;
    int versioned;
} mv_dl_token;
mv_dl_token *mv_dl_new_token(void *tensor, int versioned);
int mv_dl_import_go(const DLTensor *dl, int readonly, mv_dl_token *token, mv_meta *m);
int mv_dl_dtype_name(DLDataType t, char *out, size_t n);
int mv_dlpack_export_init(void);
int mv_dlpack_from_init(void);

/* proto_dlpack_import.c: mv_dl_import_host makes an array over a host (kDLCPU)
 * tensor without Go, taking the tensor (its deleter runs exactly once, with the
 * GIL, when nothing uses the memory any more); base is what the array reports
 * as its base (may be NULL). NULL without an exception for a tensor it leaves
 * to the Go path, NULL with one for a failure of its own (out of memory): the
 * tensor is still the caller's then. */
PyObject *mv_dl_import_host(void *tensor, int versioned, const DLTensor *dl, int readonly, PyObject *base);

/* proto_dlpack_table.c: the exchange table capsule (module.c sets it on the type). */
PyObject *mv_dlpack_exchange_capsule(void);

/* proto_dlpack_from.c: use PyObject_VectorcallMethod to ask producers (on,
 * where the interpreter has it) or the bound-method fallback (off); returns
 * whether the vectorcall is in use. For the test build. */
int mv_dlpack_selftest_vectorcall(int on);

#endif
