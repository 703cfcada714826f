/*
 * memory.c — installs memview's raw-memory objects into memview._core:
 * Buffer (buffer.c), Builder (builder.c) and the pool functions (pools.c).
 */
#include "memory.h"

int
mv_install_memory(PyObject *mod)
{
    if (mv_install_pools(mod) < 0 || mv_install_buffer(mod) < 0 || mv_install_builder(mod) < 0)
        return -1;
    return 0;
}
