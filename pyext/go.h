/*
 * go.h — the Go bridge: the only C that calls Go, and the fork gate it checks.
 *
 * go_bridge.h (written by tools/gobridge.py) declares mv_go_NAME for every Go
 * function pyext exports; go_fork.c keeps mv_in_child, set in a process forked
 * after memview was loaded, where no Go runs. Each mv_go_NAME refuses there by
 * itself (MV_FORKED_ERROR), so no path into Go can miss the gate; the layers
 * above still ask mv_check_go first where they can say what needed Go.
 */
#ifndef MEMVIEW_GO_H
#define MEMVIEW_GO_H

#include "base.h"
#include "go_bridge.h"

/* go_fork.c: mv_in_child is set in a forked child. mv_fork_child_hook, set by
 * the test build (selftest.c), runs in each child right after the flag. */
extern int mv_in_child;
extern void (*mv_fork_child_hook)(void);

/* mv_go_usable says whether Go may be called (not in a forked child). */
static inline int
mv_go_usable(void)
{
    return !mv_in_child;
}

/* mv_check_go raises the fork's RuntimeError (and returns -1) where Go may not
 * be called; 0 elsewhere. */
int mv_check_go(void);

/* mv_raise_forked raises the fork's RuntimeError naming what needed Go and
 * returns NULL; _cuda raises it as memview.cuda.CUDAError, _as as type. */
PyObject *mv_raise_forked(const char *what);
PyObject *mv_raise_forked_cuda(const char *what);
PyObject *mv_raise_forked_as(PyObject *type, const char *what);

/* mv_install_fork_handlers registers the pthread_atfork handler once. */
int mv_install_fork_handlers(void);

#endif
