/*
 * cuda_abi.h — the part of the CUDA driver's ABI that memview uses, written once
 * with cuda.h's names, and the argument block of memview's own device kernels.
 *
 * Both sides include it: cuda/driver.go, which finds these entry points with
 * dlsym at run time, and tests/fake_cuda/fake_cuda.c, the stand-in driver that
 * defines them (so the compiler checks the fake's definitions against these
 * prototypes). The values and layouts are those of cuda.h (CUDA 11 to 13; the
 * structures have not changed since CUDA 3.2); the _Static_asserts hold the
 * sizes and offsets to them.
 */
#ifndef MEMVIEW_CUDA_ABI_H
#define MEMVIEW_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- types ---- */

typedef int CUresult;                   /* enum cudaError_enum: an int-sized enum */
typedef int CUdevice;                   /* a device ordinal handle */
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2 */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;

_Static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr is 64 bits");
_Static_assert(sizeof(CUresult) == 4, "CUresult is an int");

/* ---- CUresult values memview names or acts on ---- */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
};

/* CUmemorytype */
enum {
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMORYTYPE_ARRAY = 3,
    CU_MEMORYTYPE_UNIFIED = 4,
};

/* CUpointer_attribute */
enum { CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9 };

/* Flags */
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_STREAM_DEFAULT 0x0
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

/* CUjit_option: the error log of a PTX module that does not load */
enum {
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* ---- CUDA_MEMCPY2D (CUDA_MEMCPY2D_v2) ---- */
typedef struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes;
    size_t srcY;
    int srcMemoryType; /* CUmemorytype */
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray; /* CUarray */
    size_t srcPitch;
    size_t dstXInBytes;
    size_t dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes;
    size_t Height;
} CUDA_MEMCPY2D;

_Static_assert(sizeof(CUDA_MEMCPY2D) == 128, "CUDA_MEMCPY2D is 128 bytes");
_Static_assert(offsetof(CUDA_MEMCPY2D, srcMemoryType) == 16, "srcMemoryType");
_Static_assert(offsetof(CUDA_MEMCPY2D, srcHost) == 24, "srcHost");
_Static_assert(offsetof(CUDA_MEMCPY2D, srcDevice) == 32, "srcDevice");
_Static_assert(offsetof(CUDA_MEMCPY2D, srcPitch) == 48, "srcPitch");
_Static_assert(offsetof(CUDA_MEMCPY2D, dstXInBytes) == 56, "dstXInBytes");
_Static_assert(offsetof(CUDA_MEMCPY2D, dstMemoryType) == 72, "dstMemoryType");
_Static_assert(offsetof(CUDA_MEMCPY2D, dstDevice) == 88, "dstDevice");
_Static_assert(offsetof(CUDA_MEMCPY2D, dstPitch) == 104, "dstPitch");
_Static_assert(offsetof(CUDA_MEMCPY2D, WidthInBytes) == 112, "WidthInBytes");
_Static_assert(offsetof(CUDA_MEMCPY2D, Height) == 120, "Height");

/* ---- the entry points, by their symbol names (cuda.h maps the plain names of
 * the versioned ones to these with #define) ---- */
CUresult cuInit(unsigned int Flags);
CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuGetErrorString(CUresult error, const char **pStr);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxGetCurrent(CUcontext *pctx);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxGetDevice(CUdevice *device);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream);
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream);
CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult cuStreamDestroy_v2(CUstream hStream);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuStreamQuery(CUstream hStream);
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags);
CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult cuEventDestroy_v2(CUevent hEvent);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuEventSynchronize(CUevent hEvent);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra);

/* ---- memview's kernels (cuda/kernels.ptx) ----
 *
 * Every kernel takes one parameter, this block, by value. It describes a walk
 * over "rows" (the product of the outer axes) of an inner axis; kernel.go packs
 * it and the PTX reads it at these offsets (kernel.go's constants, which a test
 * compares with this struct). Strides are signed byte counts. For copies the
 * element is one unit of 1, 2, 4, 8 or 16 bytes (wider items are split into
 * units along an extra innermost axis); for fills it is one item whose bytes are
 * in value (fill_u* store the first unit of value, fill_bytes all itemsize bytes).
 */
#define MV_KERNEL_MAXOUTER 63 /* outer axes: enough for 64 dimensions plus the unit axis, merged */
#define MV_KERNEL_MAXVALUE 64 /* bytes of a fill item carried in the block */

typedef struct {
    uint64_t n;  /* length */
    int64_t ds;  /* destination stride, bytes */
    int64_t ss;  /* source stride, bytes (copies) */
} mv_kernel_axis;

typedef struct {
    uint64_t dst;      /* address of the first element of the destination */
    uint64_t src;      /* copies: address of the first element of the source */
    uint64_t n0;       /* length of the inner axis */
    int64_t ds0;       /* destination stride along it */
    int64_t ss0;       /* source stride along it (copies) */
    uint64_t rows;     /* product of the outer lengths (1 when there are none) */
    uint32_t nouter;   /* number of outer axes, innermost first */
    uint32_t itemsize; /* fill_bytes: bytes per item */
    uint8_t value[MV_KERNEL_MAXVALUE]; /* fills: the item */
    mv_kernel_axis outer[MV_KERNEL_MAXOUTER];
} mv_kernel_args;

_Static_assert(sizeof(mv_kernel_axis) == 24, "mv_kernel_axis");
_Static_assert(offsetof(mv_kernel_args, n0) == 16, "n0");
_Static_assert(offsetof(mv_kernel_args, rows) == 40, "rows");
_Static_assert(offsetof(mv_kernel_args, nouter) == 48, "nouter");
_Static_assert(offsetof(mv_kernel_args, itemsize) == 52, "itemsize");
_Static_assert(offsetof(mv_kernel_args, value) == 56, "value");
_Static_assert(offsetof(mv_kernel_args, outer) == 120, "outer");
_Static_assert(sizeof(mv_kernel_args) == 120 + 24 * MV_KERNEL_MAXOUTER, "mv_kernel_args");

#endif
