/*
 * dlpack.h — the DLPack 1.3 ABI as memview uses it, written from the DLPack
 * specification (the C structures and the Python exchange rules). The names
 * follow the specification's, so that a reader can check each field against
 * it; the _Static_asserts pin the sizes and offsets that cross the ABI.
 *
 * No Python types here: the benchmark of the exchange table includes it too.
 */
#ifndef MEMVIEW_DLPACK_H
#define MEMVIEW_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

/* Capsule names of the Python protocol. A consumer renames the capsule to the
 * "used_" name when it takes ownership of the tensor. */
#define MV_DLPACK_CAPSULE "dltensor"
#define MV_DLPACK_USED_CAPSULE "used_dltensor"
#define MV_DLPACK_VERSIONED_CAPSULE "dltensor_versioned"
#define MV_DLPACK_VERSIONED_USED_CAPSULE "used_dltensor_versioned"
#define MV_DLPACK_EXCHANGE_API_CAPSULE "dlpack_exchange_api"

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* DLDeviceType: an int32 enum in the specification; memview stores it as
 * int32_t so its size never depends on the compiler. */
typedef int32_t DLDeviceType;
enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,     /* pinned host memory (cuMemHostAlloc) */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13, /* managed memory (cuMemAllocManaged) */
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18,
};

typedef struct {
    DLDeviceType device_type;
    int32_t device_id; /* 0 for CPU, pinned and managed memory */
} DLDevice;

/* DLDataTypeCode: the codes memview reads and writes (later codes — float8,
 * float6, float4 — have no memview dtype). */
enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
};

typedef struct {
    uint8_t code;   /* a DLDataTypeCode */
    uint8_t bits;   /* bits of one lane: 8, 16, 32, 64, 128 */
    uint16_t lanes; /* 1 for everything memview exchanges */
} DLDataType;

typedef struct {
    void *data;           /* for CUDA a device address; NULL allowed for size 0 */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim entries; may be NULL when ndim == 0 */
    int64_t *strides;     /* in elements, ndim entries; never NULL for ndim > 0 since 1.2 */
    uint64_t byte_offset; /* added to data to reach element 0 */
} DLTensor;

/* The legacy (unversioned) managed tensor, capsule "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self); /* may be NULL */
} DLManagedTensor;

/* flags of DLManagedTensorVersioned */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

/* The versioned managed tensor, capsule "dltensor_versioned". Everything up to
 * flags stays where it is in every future major version, so that a consumer can
 * always call the deleter of a tensor whose major version it does not know. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self); /* may be NULL */
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* ---- the C exchange table (DLPack 1.3): type(x).__dlpack_c_exchange_api__ is a
 * capsule named "dlpack_exchange_api" holding a DLPackExchangeAPI* that lives as
 * long as the process. Each function returns 0, or -1 with the error reported
 * (a Python exception set, or SetError called for the allocator). */

typedef int (*DLPackManagedTensorAllocator)(
    DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
    void (*SetError)(void *error_ctx, const char *kind, const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id, void **out_current_stream);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor, void **out_py_object);

typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api; /* an older table, or NULL */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

/* The ABI on LP64 targets (memview builds for 64-bit Linux). */
_Static_assert(sizeof(DLDevice) == 8, "DLDevice");
_Static_assert(sizeof(DLDataType) == 4, "DLDataType");
_Static_assert(offsetof(DLTensor, device) == 8, "DLTensor.device");
_Static_assert(offsetof(DLTensor, ndim) == 16, "DLTensor.ndim");
_Static_assert(offsetof(DLTensor, dtype) == 20, "DLTensor.dtype");
_Static_assert(offsetof(DLTensor, shape) == 24, "DLTensor.shape");
_Static_assert(offsetof(DLTensor, strides) == 32, "DLTensor.strides");
_Static_assert(offsetof(DLTensor, byte_offset) == 40, "DLTensor.byte_offset");
_Static_assert(sizeof(DLTensor) == 48, "DLTensor");
_Static_assert(offsetof(DLManagedTensor, manager_ctx) == 48, "DLManagedTensor.manager_ctx");
_Static_assert(offsetof(DLManagedTensor, deleter) == 56, "DLManagedTensor.deleter");
_Static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8, "DLManagedTensorVersioned.manager_ctx");
_Static_assert(offsetof(DLManagedTensorVersioned, deleter) == 16, "DLManagedTensorVersioned.deleter");
_Static_assert(offsetof(DLManagedTensorVersioned, flags) == 24, "DLManagedTensorVersioned.flags");
_Static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32, "DLManagedTensorVersioned.dl_tensor");
_Static_assert(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned");
_Static_assert(sizeof(DLPackExchangeAPIHeader) == 16, "DLPackExchangeAPIHeader");
_Static_assert(offsetof(DLPackExchangeAPI, managed_tensor_allocator) == 16, "DLPackExchangeAPI.allocator");
_Static_assert(offsetof(DLPackExchangeAPI, current_work_stream) == 48, "DLPackExchangeAPI.current_work_stream");

#endif
