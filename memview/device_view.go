package memview

// ViewableOn reports whether memory on d can be addressed as memory of target
// without a copy:
//
//   - any memory from its own device;
//   - host memory of every kind the CPU can address (pageable, pinned,
//     managed) from the CPU;
//   - pinned host memory from any CUDA device (memview maps it into every
//     context, and with unified addressing its host address is its device
//     address);
//   - managed memory from any CUDA device and from the CPU.
//
// Pageable host memory is not addressable by a CUDA device, nor is one
// device's memory by another device or the CPU: those need a copy.
func (d Device) ViewableOn(target Device) bool {
	if d == target {
		return true
	}
	switch target.Kind {
	case CPU:
		return d.HostAccessible()
	case CUDA:
		return d.Kind == CUDAHost || d.Kind == CUDAManaged
	}
	return false
}
