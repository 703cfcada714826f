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
//     arrays with any strides, planned in Go as 2-D copies (plan.go) and run by
//     the driver's copy engines; no kernel of memview's own is needed.
//
// Limits: a device-to-device copy that reverses an axis relative to its
// source, or broadcasts, goes through a dense device temporary, and through
// host memory when the directions still disagree (2-D copies only run
// forwards); copies that touch host memory wait for their stream before
// returning.
package cuda
