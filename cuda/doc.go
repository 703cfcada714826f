// Package cuda is the only package of memview that knows CUDA. It loads the
// driver library (libcuda.so.1) at run time with dlopen, so memview builds and
// imports with no CUDA toolkit, headers or GPU; where there is no driver or no
// device every entry point returns an error wrapping ErrNoDevice.
//
// It uses each device's primary context (the one CuPy, Numba and PyTorch use),
// made current on the calling thread for each driver call sequence inside one
// C call and restored afterwards, so it is correct however goroutines move
// between threads and leaves other libraries' current device alone.
//
// What it offers:
//   - DeviceCount, Available, PointerDevice;
//   - Allocator (device, pinned host and managed memory) behind memview's
//     Allocator interface, and Pool, a memview.Pool per device with the same
//     statistics as host pools;
//   - Stream (NewStream, or StreamOf for a stream made elsewhere) and Event
//     (Record, WaitOn): ordering without blocking the host;
//   - Copy and Fill between any two of host, pinned, managed and device
//     arrays with any strides: dense spans and host transfers by the
//     driver's copy engines, everything strided on the device by memview's own
//     kernels (kernels.ptx, hand-written PTX that the driver compiles at run
//     time: no CUDA toolkit is needed to build memview), planned in Go
//     (kernel.go, plan.go);
//   - the work memview leaves pending on device memory kept with the memory
//     (a memview.DeviceState on the buffer, shared by every view):
//     PendingStream names the stream to wait for, WaitHost waits for it.
//
// Nothing between two device arrays goes through host memory. Copies and
// fills that touch memory the CPU can reach (host, pinned or managed) are
// finished when they return; work on device memory is left pending on its
// stream, and memview's later work on the memory, on any stream, waits for it
// on the device.
//
// The driver file has a no-cgo twin (driver_nocgo.go): without cgo the
// package builds, its planners and kernels are tested (CGO_ENABLED=0 go test
// ./cuda/...), and every entry point reports ErrNoDevice.
package cuda
