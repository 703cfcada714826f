// Package cuda will be the only package of memview that knows CUDA: it will load
// the driver library (libcuda.so.1) at run time, so that memview builds and
// imports with no CUDA toolkit or GPU, and provide device, pinned and managed
// allocators that implement memview.Allocator, plus streams and events.
//
// Nothing is implemented yet; see the project's open CUDA issue.
package cuda
