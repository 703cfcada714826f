package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The few CUDA driver entry points memview uses, called through pointers found
// with dlsym, so nothing of CUDA is needed to build or load memview.
typedef int (*cu_init_t)(unsigned int);
typedef int (*cu_device_get_count_t)(int *);
typedef int (*cu_pointer_get_attribute_t)(void *, int, uintptr_t);

static void *cu_lib;
static cu_init_t cu_init;
static cu_device_get_count_t cu_device_get_count;
static cu_pointer_get_attribute_t cu_pointer_get_attribute;

// cu_load opens libcuda.so.1 and resolves the entry points: 0 on success,
// -1 when there is no driver library, -2 when a symbol is missing.
static int cu_load(void) {
	if (cu_lib != NULL)
		return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return -1;
	cu_init = (cu_init_t)dlsym(h, "cuInit");
	cu_device_get_count = (cu_device_get_count_t)dlsym(h, "cuDeviceGetCount");
	cu_pointer_get_attribute = (cu_pointer_get_attribute_t)dlsym(h, "cuPointerGetAttribute");
	if (!cu_init || !cu_device_get_count || !cu_pointer_get_attribute) {
		dlclose(h);
		return -2;
	}
	cu_lib = h;
	return 0;
}

static int cu_call_init(void) { return cu_init(0); }
static int cu_call_device_get_count(int *n) { return cu_device_get_count(n); }

// CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL is 9 in cuda.h.
static int cu_call_pointer_device(uintptr_t ptr, int *ordinal) {
	return cu_pointer_get_attribute(ordinal, 9, ptr);
}
*/
import "C"

import (
	"fmt"
	"sync"
)

// driver state, loaded once.
var (
	loadOnce sync.Once
	loadErr  error
)

// load opens the driver library and initialises it, once per process.
func load() error {
	loadOnce.Do(func() {
		switch C.cu_load() {
		case -1:
			loadErr = fmt.Errorf("cuda: libcuda.so.1 not found (no NVIDIA driver): %w", ErrNoDevice)
			return
		case -2:
			loadErr = fmt.Errorf("cuda: libcuda.so.1 lacks a driver entry point memview needs: %w", ErrNoDevice)
			return
		}
		if rc := C.cu_call_init(); rc != 0 {
			loadErr = fmt.Errorf("cuda: cuInit failed: %w", resultError(int(rc)))
		}
	})
	return loadErr
}

// DeviceCount returns the number of CUDA devices, or an error wrapping
// ErrNoDevice when there is no driver or no device.
func DeviceCount() (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var n C.int
	if rc := C.cu_call_device_get_count(&n); rc != 0 {
		return 0, fmt.Errorf("cuda: cuDeviceGetCount: %w", resultError(int(rc)))
	}
	if n == 0 {
		return 0, fmt.Errorf("cuda: the driver sees no device: %w", ErrNoDevice)
	}
	return int(n), nil
}

// Available reports whether a CUDA driver and at least one device are present.
func Available() bool {
	n, err := DeviceCount()
	return err == nil && n > 0
}

// PointerDevice returns the ordinal of the device a CUDA address belongs to.
func PointerDevice(addr uintptr) (int, error) {
	if err := load(); err != nil {
		return 0, err
	}
	var ordinal C.int
	if rc := C.cu_call_pointer_device(C.uintptr_t(addr), &ordinal); rc != 0 {
		return 0, fmt.Errorf("cuda: cuPointerGetAttribute(%#x, DEVICE_ORDINAL): %w", addr, resultError(int(rc)))
	}
	return int(ordinal), nil
}
