/* Written by tools/gobridge.py from the //export functions of pyext's Go files: do not edit. */

/*
 * go_bridge.h — the Go bridge: every call pyext's C makes into Go, as mv_go_NAME
 * for Go's mvgo_NAME (the Go function documents each one). Each call is refused
 * in a forked child, where no Go runs (go_fork.c): a function with an mv_err
 * gets MV_FORKED_ERROR and returns -1, one without results does nothing, any
 * other returns zero. Call with the GIL unless the Go function says otherwise.
 */
#ifndef MEMVIEW_GO_BRIDGE_H
#define MEMVIEW_GO_BRIDGE_H

#include <stdint.h>
#include "bridge.h"
#include "memory_bridge.h"

int mv_go_blocks_get(int64_t nbytes, int n, uintptr_t *ptrs, mv_err *e);
void mv_go_blocks_put(uintptr_t *ptrs, int n);
void mv_go_blocks_sync(int64_t handed, int64_t handedBytes);
int64_t mv_go_blocks_lent(void);
int mv_go_block_adopt(void *ptr, char *dtype, char *format, int ndim, int64_t *shape, int64_t *strides, uintptr_t *h, mv_err *e);
int mv_go_create_info(char *name, mv_meta *m, mv_err *e);
int mv_go_empty(int ndim, int64_t *shape, char *dtype, char order, char *device, uint64_t pool, int zero, mv_meta *m, mv_err *e);
int mv_go_import(void *buf, int ndim, int64_t *shape, int64_t *strides, int64_t itemsize, char *format, int readonly, void *token, mv_meta *m, mv_err *e);
int mv_go_wrap_device(uintptr_t ptr, int ndim, int64_t *shape, int64_t *strides, char *typestr, int readonly, uintptr_t stream, int sync, void *token, mv_meta *m, mv_err *e);
int mv_go_dtype_info(char *name, int asFormat, mv_meta *m, mv_err *e);
int mv_go_cuda_device_count(void);
int mv_go_release(uintptr_t h, mv_err *e);
int mv_go_layout_view(uintptr_t h, int64_t offset, int n, int64_t *shape, int64_t *strides, char *format, int readonly, uintptr_t *out, mv_err *e);
void mv_go_pool_info(char *backend, int nb, char *warning, int nw);
int mv_go_buffer_new(int64_t size, uint64_t pool, int resizable, mv_buf_meta *m, mv_err *e);
int mv_go_buffer_from(void *src, int64_t n, uint64_t pool, int mutable, mv_buf_meta *m, mv_err *e);
int mv_go_buffer_slice(uintptr_t h, int64_t offset, int64_t length, int mutable, mv_buf_meta *m, mv_err *e);
int mv_go_buffer_resize(uintptr_t h, int64_t n, int shrink, int reserve, mv_buf_meta *m, mv_err *e);
int mv_go_buffer_view(uintptr_t h, char *dtype, int ndim, int64_t *shape, int64_t *strides, int64_t offset, mv_meta *m, mv_err *e);
int mv_go_buffer_on(uintptr_t h, char *device, int copyOK, uint64_t pool, uintptr_t stream, mv_buf_meta *m, mv_err *e);
int mv_go_array_on(uintptr_t h, char *device, mv_meta *m, mv_err *e);
int mv_go_buffer_release(uintptr_t h, mv_err *e);
int mv_go_builder_new(char *dtype, uint64_t pool, uintptr_t *h, int64_t *itemsize, mv_err *e);
int mv_go_builder_reserve(uintptr_t h, int64_t n, int64_t additional, char **data, int64_t *capacity, mv_err *e);
int mv_go_builder_finish(uintptr_t h, int64_t n, int shrink, mv_meta *m, mv_err *e);
int mv_go_builder_drop(uintptr_t h, mv_err *e);
int mv_go_copy_to_device(uintptr_t h, char *device, char order, uintptr_t stream, uint64_t pool, mv_meta *m, mv_err *e);
int mv_go_copyto(uintptr_t dst, uintptr_t src, uintptr_t stream, mv_err *e);
int mv_go_fill(uintptr_t h, void *item, int64_t n, uintptr_t stream, mv_err *e);
int mv_go_stream_create(int ordinal, int nonBlocking, uintptr_t *out, mv_err *e);
int mv_go_stream_destroy(uintptr_t h, mv_err *e);
int mv_go_stream_sync(int ordinal, uintptr_t h, int query, int *done, mv_err *e);
void mv_go_cuda_pool_stats(int64_t *out);
int mv_go_field_info(char *key, mv_meta *m, int64_t *offset, mv_err *e);
int mv_go_import_foreign(uintptr_t ptr, int ndim, int64_t *shape, int64_t *strides, char *dtype, int readonly, int devKind, int devID, void *token, char *who, mv_meta *m, mv_err *e);
int mv_go_dtype_desc(char *name, char **out, mv_err *e);
int mv_go_from_gopy(int64_t h, int writable, mv_meta *m, mv_err *e);
int mv_go_lend_slice(uintptr_t h, char *elem, int64_t *out, mv_err *e);
int mv_go_lend_array(uintptr_t h, int64_t *out, mv_err *e);
int mv_go_lend_buffer(void *buf, int ndim, int64_t *shape, int64_t *strides, int64_t itemsize, char *format, int readonly, void *token, char *kind, int64_t *out, int *taken, mv_err *e);
int mv_go_unlend(int64_t h, mv_err *e);
char *mv_go_sentinels(void);
int mv_go_set_sentinel_class(char *name, void *class);
int mv_go_import_info(char *format, mv_meta *m, int *align, mv_err *e);
int mv_go_pool_new(int kind, char *name, uint64_t inner, uint64_t *out, mv_err *e);
void mv_go_pool_drop(uint64_t id);
int mv_go_pool_default(uint64_t set, uint64_t *out, mv_err *e);
int mv_go_pool_stats(uint64_t id, int64_t *stats, char *backend, int nb, char *device, int nd, mv_err *e);
int mv_go_pool_leaks(uint64_t id, char **out, mv_err *e);
int mv_go_stream_wait(uintptr_t h, uintptr_t pending, uintptr_t consumer, mv_err *e);
int mv_go_sync_event(uintptr_t h, uintptr_t pending, uintptr_t *out, mv_err *e);
void mv_go_event_destroy(uintptr_t ev);
int mv_go_wait_event(int ordinal, uintptr_t ev, mv_err *e);

/* only where //go:build memview_selftest */
int mv_go_selftest_panic(mv_err *e);
int mv_go_index(uintptr_t h, int n, mv_index *idx, mv_meta *m, mv_err *e);
int mv_go_transpose(uintptr_t h, int n, int64_t *axes, mv_meta *m, mv_err *e);
int mv_go_reshape(uintptr_t h, int n, int64_t *shape, mv_meta *m, mv_err *e);

#endif
