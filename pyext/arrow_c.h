/*
 * arrow_c.h — the Arrow C data interface and C device data interface structures,
 * written from the Arrow format specification, with the PyCapsule names of its
 * Python protocol. The _Static_asserts pin the ABI on 64-bit targets.
 */
#ifndef MEMVIEW_ARROW_C_H
#define MEMVIEW_ARROW_C_H

#include <stddef.h>
#include <stdint.h>

#define MV_ARROW_SCHEMA_CAPSULE "arrow_schema"
#define MV_ARROW_ARRAY_CAPSULE "arrow_array"
#define MV_ARROW_DEVICE_ARRAY_CAPSULE "arrow_device_array"

/* ArrowSchema.flags */
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/* A type: a format string (such as "g" for float64, "+w:4" for a fixed-size
 * list of 4), an optional name, optional binary metadata, and children. A
 * released schema has release == NULL. */
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata; /* int32 count, then per pair: int32 length + key bytes, int32 length + value bytes */
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

/* The data of an array: length, nulls, an offset in elements into the buffers,
 * the buffers (for a primitive type: validity bitmap or NULL, then the values),
 * and children. A released array has release == NULL. */
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

/* Device types: the same numbers as DLPack's DLDeviceType. */
typedef int32_t ArrowDeviceType;
#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3
#define ARROW_DEVICE_CUDA_MANAGED 13

/* An array whose buffers live on a device. For CUDA, sync_event is NULL or
 * points to a CUevent the consumer must wait on before reading the buffers. */
struct ArrowDeviceArray {
    struct ArrowArray array;
    int64_t device_id;
    ArrowDeviceType device_type;
    void *sync_event;
    int64_t reserved[3]; /* zero */
};

_Static_assert(sizeof(struct ArrowSchema) == 72, "ArrowSchema");
_Static_assert(offsetof(struct ArrowSchema, release) == 56, "ArrowSchema.release");
_Static_assert(sizeof(struct ArrowArray) == 80, "ArrowArray");
_Static_assert(offsetof(struct ArrowArray, buffers) == 40, "ArrowArray.buffers");
_Static_assert(offsetof(struct ArrowArray, release) == 64, "ArrowArray.release");
_Static_assert(offsetof(struct ArrowDeviceArray, device_id) == 80, "ArrowDeviceArray.device_id");
_Static_assert(offsetof(struct ArrowDeviceArray, device_type) == 88, "ArrowDeviceArray.device_type");
_Static_assert(offsetof(struct ArrowDeviceArray, sync_event) == 96, "ArrowDeviceArray.sync_event");
_Static_assert(sizeof(struct ArrowDeviceArray) == 128, "ArrowDeviceArray");

#endif
