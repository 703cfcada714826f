//go:build memview_selftest

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
mv_go_selftest_panic(mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_selftest_panic");
    return mvgo_selftest_panic(e);
}

int
mv_go_index(uintptr_t h, int n, mv_index *idx, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_index");
    return mvgo_index(h, n, idx, m, e);
}

int
mv_go_transpose(uintptr_t h, int n, int64_t *axes, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_transpose");
    return mvgo_transpose(h, n, axes, m, e);
}

int
mv_go_reshape(uintptr_t h, int n, int64_t *shape, mv_meta *m, mv_err *e)
{
    if (mv_in_child)
        return refused(e, "mvgo_reshape");
    return mvgo_reshape(h, n, shape, m, e);
}
