package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/memview/memview/memview"
)

var _ memview.DeviceAllocator = (*Allocator)(nil)

// Allocator hands out CUDA memory of one kind — device memory of one GPU,
// pinned (page-locked) host memory, or managed memory — through memview's
// Allocator interface, so that a memview.Pool keeps the same statistics for it
// as for host memory. Memory is zero-filled (on a private stream that is
// synchronised before Allocate returns, so it is ready for any stream) and at
// least 256-byte aligned.
//
// Device memory comes back as a []byte only to fit the interface: the CPU must
// never touch it (memview refuses every host access to a CUDA buffer).
type Allocator struct {
	dev  memview.Device
	kind int
	ctx  uintptr
	zero uintptr

	mu   sync.Mutex
	live map[uintptr]int // address -> size
}

// NewAllocator returns an allocator for dev: CUDA device memory of device
// dev.ID, pinned host memory (CUDAHost; registered with every context) or
// managed memory (CUDAManaged, attached globally, dev.ID's context). A CPU
// device wraps ErrInvalid; no driver or device wraps ErrNoDevice.
func NewAllocator(dev memview.Device) (*Allocator, error) {
	kinds := map[memview.DeviceKind]int{memview.CUDA: memDevice, memview.CUDAHost: memPinned, memview.CUDAManaged: memManaged}
	kind, ok := kinds[dev.Kind]
	if !ok {
		return nil, fmt.Errorf("cuda: no CUDA allocator for device %s: %w", dev, memview.ErrInvalid)
	}
	d, err := deviceFor(dev.ID)
	if err != nil {
		return nil, err
	}
	return &Allocator{dev: dev, kind: kind, ctx: d.ctx, zero: d.zero, live: map[uintptr]int{}}, nil
}

// Device is where the memory lives.
func (a *Allocator) Device() memview.Device { return a.dev }

// Name is "cuda", "cuda_host" or "cuda_managed".
func (a *Allocator) Name() string { return [...]string{"cuda", "cuda_host", "cuda_managed"}[a.kind] }

// Allocate returns size zeroed bytes. Size 0 gives a valid, unique address (one
// byte is reserved). Out of memory wraps memview.ErrNoMemory.
func (a *Allocator) Allocate(size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("cuda: %s allocator: negative size %d: %w", a.Name(), size, memview.ErrInvalid)
	}
	p, err := drvAlloc(a.ctx, a.kind, max(size, 1), a.zero)
	if err != nil {
		return nil, fmt.Errorf("cuda: %s allocator on %s: %w", a.Name(), a.dev, err)
	}
	a.mu.Lock()
	a.live[p] = size
	a.mu.Unlock()
	return unsafe.Slice((*byte)(addrPointer(p)), size), nil
}

// Free gives back memory from Allocate; an unknown slice wraps ErrInvalid.
func (a *Allocator) Free(b []byte) error {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.mu.Lock()
	size, ok := a.live[p]
	if ok && size == len(b) {
		delete(a.live, p)
	}
	a.mu.Unlock()
	if !ok || size != len(b) {
		return fmt.Errorf("cuda: %s allocator: free of unknown memory at %#x (%d bytes): %w", a.Name(), p, len(b), memview.ErrInvalid)
	}
	return drvFree(a.ctx, a.kind, p)
}

// addrPointer reinterprets a driver address as a pointer without converting
// it, which says that it is not derived from a Go pointer (and keeps go vet's
// unsafeptr check meaningful). It is never dereferenced for device memory.
func addrPointer(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

var (
	poolsMu sync.Mutex
	pools   = map[memview.Device]*memview.Pool{}
)

// Pool returns the process-wide pool for dev (a CUDA kind), made on first
// use. "cuda_managed" without an ordinal is device 0.
func Pool(dev memview.Device) (*memview.Pool, error) {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	if p, ok := pools[dev]; ok {
		return p, nil
	}
	a, err := NewAllocator(dev)
	if err != nil {
		return nil, err
	}
	p := memview.NewPool(a)
	pools[dev] = p
	return p, nil
}

// Pools returns the pools made so far, for statistics.
func Pools() map[memview.Device]*memview.Pool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	out := make(map[memview.Device]*memview.Pool, len(pools))
	for d, p := range pools {
		out[d] = p
	}
	return out
}
