/* Written by tools/gobridge.py from the //export functions of pyext's Go files: do not edit. */

#include <stdio.h>
#include "go_bridge.h"
#include "_cgo_export.h"

extern int mv_in_child; /* go_fork.c */

static int
refused(mv_err *e, const char *what)
{
    if (e != NULL) {
        e->kind = MV_FORKED_ERROR;
        snprintf(e->msg, sizeof e->msg, "this operation (%s)", what);
    }
    return -1;
}

int
mv_go_blocks_get(int64_t nbytes, int n, uintptr_t *ptrs, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_blocks_get");
    return mvgo_blocks_get(nbytes, n, ptrs, e);
}

void
mv_go_blocks_put(uintptr_t *ptrs, int n)
{
    if (mv_in_child)
        return;
    mvgo_blocks_put(ptrs, n);
}

void
mv_go_blocks_sync(int64_t handed, int64_t handedBytes)
{
    if (mv_in_child)
        return;
    mvgo_blocks_sync(handed, handedBytes);
}

int64_t
mv_go_blocks_lent(void)
{
    if (mv_in_child)
        return (int64_t)0;
    return mvgo_blocks_lent();
}

int
mv_go_block_adopt(void *ptr, char *dtype, char *format, int ndim, int64_t *shape, int64_t *strides, uintptr_t *h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_block_adopt");
    return mvgo_block_adopt(ptr, dtype, format, ndim, shape, strides, h, e);
}

int
mv_go_create_info(char *name, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_create_info");
    return mvgo_create_info(name, m, e);
}

int
mv_go_empty(int ndim, int64_t *shape, char *dtype, char order, char *device, uint64_t pool, int zero, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_empty");
    return mvgo_empty(ndim, shape, dtype, order, device, pool, zero, m, e);
}

int
mv_go_import(void *buf, int ndim, int64_t *shape, int64_t *strides, int64_t itemsize, char *format, int readonly, void *token, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_import");
    return mvgo_import(buf, ndim, shape, strides, itemsize, format, readonly, token, m, e);
}

int
mv_go_wrap_device(uintptr_t ptr, int ndim, int64_t *shape, int64_t *strides, char *typestr, int readonly, uintptr_t stream, int sync, void *token, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_wrap_device");
    return mvgo_wrap_device(ptr, ndim, shape, strides, typestr, readonly, stream, sync, token, m, e);
}

int
mv_go_dtype_info(char *name, int asFormat, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_dtype_info");
    return mvgo_dtype_info(name, asFormat, m, e);
}

int
mv_go_cuda_device_count(void)
{
    if (mv_in_child)
        return (int)0;
    return mvgo_cuda_device_count();
}

int
mv_go_release(uintptr_t h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_release");
    return mvgo_release(h, e);
}

int
mv_go_layout_view(uintptr_t h, int64_t offset, int n, int64_t *shape, int64_t *strides, char *format, int readonly, uintptr_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_layout_view");
    return mvgo_layout_view(h, offset, n, shape, strides, format, readonly, out, e);
}

void
mv_go_pool_info(char *backend, int nb, char *warning, int nw)
{
    if (mv_in_child)
        return;
    mvgo_pool_info(backend, nb, warning, nw);
}

int
mv_go_buffer_new(int64_t size, uint64_t pool, int resizable, mv_buf_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_new");
    return mvgo_buffer_new(size, pool, resizable, m, e);
}

int
mv_go_buffer_from(void *src, int64_t n, uint64_t pool, int mutable, mv_buf_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_from");
    return mvgo_buffer_from(src, n, pool, mutable, m, e);
}

int
mv_go_buffer_slice(uintptr_t h, int64_t offset, int64_t length, int mutable, mv_buf_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_slice");
    return mvgo_buffer_slice(h, offset, length, mutable, m, e);
}

int
mv_go_buffer_resize(uintptr_t h, int64_t n, int shrink, int reserve, mv_buf_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_resize");
    return mvgo_buffer_resize(h, n, shrink, reserve, m, e);
}

int
mv_go_buffer_view(uintptr_t h, char *dtype, int ndim, int64_t *shape, int64_t *strides, int64_t offset, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_view");
    return mvgo_buffer_view(h, dtype, ndim, shape, strides, offset, m, e);
}

int
mv_go_buffer_on(uintptr_t h, char *device, int copyOK, uint64_t pool, uintptr_t stream, mv_buf_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_on");
    return mvgo_buffer_on(h, device, copyOK, pool, stream, m, e);
}

int
mv_go_array_on(uintptr_t h, char *device, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_array_on");
    return mvgo_array_on(h, device, m, e);
}

int
mv_go_buffer_release(uintptr_t h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_buffer_release");
    return mvgo_buffer_release(h, e);
}

int
mv_go_builder_new(char *dtype, uint64_t pool, uintptr_t *h, int64_t *itemsize, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_builder_new");
    return mvgo_builder_new(dtype, pool, h, itemsize, e);
}

int
mv_go_builder_reserve(uintptr_t h, int64_t n, int64_t additional, char **data, int64_t *capacity, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_builder_reserve");
    return mvgo_builder_reserve(h, n, additional, data, capacity, e);
}

int
mv_go_builder_finish(uintptr_t h, int64_t n, int shrink, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_builder_finish");
    return mvgo_builder_finish(h, n, shrink, m, e);
}

int
mv_go_builder_drop(uintptr_t h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_builder_drop");
    return mvgo_builder_drop(h, e);
}

int
mv_go_copy_to_device(uintptr_t h, char *device, char order, uintptr_t stream, uint64_t pool, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_copy_to_device");
    return mvgo_copy_to_device(h, device, order, stream, pool, m, e);
}

int
mv_go_copyto(uintptr_t dst, uintptr_t src, uintptr_t stream, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_copyto");
    return mvgo_copyto(dst, src, stream, e);
}

int
mv_go_fill(uintptr_t h, void *item, int64_t n, uintptr_t stream, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_fill");
    return mvgo_fill(h, item, n, stream, e);
}

int
mv_go_stream_create(int ordinal, int nonBlocking, uintptr_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_stream_create");
    return mvgo_stream_create(ordinal, nonBlocking, out, e);
}

int
mv_go_stream_destroy(uintptr_t h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_stream_destroy");
    return mvgo_stream_destroy(h, e);
}

int
mv_go_stream_sync(int ordinal, uintptr_t h, int query, int *done, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_stream_sync");
    return mvgo_stream_sync(ordinal, h, query, done, e);
}

void
mv_go_cuda_pool_stats(int64_t *out)
{
    if (mv_in_child)
        return;
    mvgo_cuda_pool_stats(out);
}

int
mv_go_field_info(char *key, mv_meta *m, int64_t *offset, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_field_info");
    return mvgo_field_info(key, m, offset, e);
}

int
mv_go_import_foreign(uintptr_t ptr, int ndim, int64_t *shape, int64_t *strides, char *dtype, int readonly, int devKind, int devID, void *token, char *who, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_import_foreign");
    return mvgo_import_foreign(ptr, ndim, shape, strides, dtype, readonly, devKind, devID, token, who, m, e);
}

int
mv_go_dtype_desc(char *name, char **out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_dtype_desc");
    return mvgo_dtype_desc(name, out, e);
}

int
mv_go_from_gopy(int64_t h, int writable, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_from_gopy");
    return mvgo_from_gopy(h, writable, m, e);
}

int
mv_go_lend_slice(uintptr_t h, char *elem, int64_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_lend_slice");
    return mvgo_lend_slice(h, elem, out, e);
}

int
mv_go_lend_array(uintptr_t h, int64_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_lend_array");
    return mvgo_lend_array(h, out, e);
}

int
mv_go_lend_buffer(void *buf, int ndim, int64_t *shape, int64_t *strides, int64_t itemsize, char *format, int readonly, void *token, char *kind, int64_t *out, int *taken, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_lend_buffer");
    return mvgo_lend_buffer(buf, ndim, shape, strides, itemsize, format, readonly, token, kind, out, taken, e);
}

int
mv_go_unlend(int64_t h, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_unlend");
    return mvgo_unlend(h, e);
}

char *
mv_go_sentinels(void)
{
    if (mv_in_child)
        return (char *)0;
    return mvgo_sentinels();
}

int
mv_go_set_sentinel_class(char *name, void *class)
{
    if (mv_in_child)
        return (int)0;
    return mvgo_set_sentinel_class(name, class);
}

int
mv_go_import_info(char *format, mv_meta *m, int *align, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_import_info");
    return mvgo_import_info(format, m, align, e);
}

int
mv_go_pool_new(int kind, char *name, uint64_t inner, uint64_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_pool_new");
    return mvgo_pool_new(kind, name, inner, out, e);
}

void
mv_go_pool_drop(uint64_t id)
{
    if (mv_in_child)
        return;
    mvgo_pool_drop(id);
}

int
mv_go_pool_default(uint64_t set, uint64_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_pool_default");
    return mvgo_pool_default(set, out, e);
}

int
mv_go_pool_stats(uint64_t id, int64_t *stats, char *backend, int nb, char *device, int nd, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_pool_stats");
    return mvgo_pool_stats(id, stats, backend, nb, device, nd, e);
}

int
mv_go_pool_leaks(uint64_t id, char **out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_pool_leaks");
    return mvgo_pool_leaks(id, out, e);
}

int
mv_go_stream_wait(uintptr_t h, uintptr_t pending, uintptr_t consumer, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_stream_wait");
    return mvgo_stream_wait(h, pending, consumer, e);
}

int
mv_go_sync_event(uintptr_t h, uintptr_t pending, uintptr_t *out, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_sync_event");
    return mvgo_sync_event(h, pending, out, e);
}

void
mv_go_event_destroy(uintptr_t ev)
{
    if (mv_in_child)
        return;
    mvgo_event_destroy(ev);
}

int
mv_go_wait_event(int ordinal, uintptr_t ev, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_wait_event");
    return mvgo_wait_event(ordinal, ev, e);
}
