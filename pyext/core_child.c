/*
 * core_child.c — memory a forked child maps for itself: where no Go may run
 * (go_fork.c), new arrays and the creation cache's blocks are mappings of the
 * child's own, freed with munmap; child_memory() counts them for the tests.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core.h"

/* ---- memory the child maps itself ---- */

static Py_ssize_t child_maps, child_bytes; /* live mappings, for child_memory() */

static size_t
map_len(Py_ssize_t nbytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = nbytes > 0 ? (size_t)nbytes : 1;
    return (n + page - 1) & ~(page - 1);
}

void *
mv_child_map(Py_ssize_t nbytes)
{
    if (nbytes < 0 || (size_t)nbytes > (size_t)PY_SSIZE_T_MAX / 2) {
        PyErr_Format(PyExc_MemoryError, "memview: unable to allocate %zd bytes", nbytes);
        return NULL;
    }
    void *p = mmap(NULL, map_len(nbytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        PyErr_Format(PyExc_MemoryError, "memview: unable to allocate %zd bytes in a forked child: mmap: %s",
                     nbytes, strerror(errno));
        return NULL;
    }
    child_maps++;
    child_bytes += nbytes;
    return p;
}

void
mv_child_unmap(void *p, Py_ssize_t nbytes)
{
    if (p == NULL)
        return;
    munmap(p, map_len(nbytes));
    child_maps--;
    child_bytes -= nbytes;
}

/* child_memory() -> (mappings, bytes): what arrays made in this forked child hold */
static PyObject *
core_child_memory(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    return Py_BuildValue("(nn)", child_maps, child_bytes);
}

PyMethodDef mv_child_functions[] = {
    {"child_memory", core_child_memory, METH_NOARGS,
     "child_memory() -> (mappings, bytes) that arrays made in this forked child hold"},
    {NULL},
};
