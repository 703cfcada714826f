// Package cuda is the only package of memview that knows CUDA. It loads the
// driver library (libcuda.so.1) at run time with dlopen, so memview builds and
// imports with no CUDA toolkit, headers or GPU; where there is no driver or no
// device every entry point returns an error wrapping ErrNoDevice.
//
// Implemented so far: loading and initialising the driver, counting devices,
// and finding the device of a CUDA address (for imported CUDA arrays). Device,
// pinned and managed allocators, streams, events and copies are not written yet.
package cuda
