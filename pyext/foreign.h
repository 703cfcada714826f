/*
 * foreign.h — memory that another library owns and lends to memview through an
 * exchange protocol (a DLPack tensor, an Arrow array). Go wraps the memory and,
 * when the last reference to it goes, calls mv_release_foreign(token) once; the
 * token's release gives the memory back the way its protocol says.
 */
#ifndef MEMVIEW_FOREIGN_H
#define MEMVIEW_FOREIGN_H

typedef struct mv_foreign {
    void (*release)(struct mv_foreign *self); /* gives the memory back and frees self */
} mv_foreign;

/* Called from Go, from any thread, with or without the GIL. */
void mv_release_foreign(void *token);

#endif
