//go:build linux

package memview

import (
	"fmt"
	"math/bits"
	"sync"
	"unsafe"
)

var _ UninitAllocator = (*SlabAllocator)(nil)

// SlabAllocator serves sizes below slabMaxSize from slabs of anonymous memory
// mapped with mmap, outside the Go heap: a slab of a size class (64 bytes, then
// 2^k and 1.5·2^k bytes from 128: multiples of 64, so every block is 64-byte
// aligned, and at most a third wasted) is carved into equal blocks, and a
// bitmap per slab says which are handed out.
//
// Its memory never touches the Go heap, so running out of it is an error the
// caller sees (ErrNoMemory; MemoryError in Python), never the Go runtime's
// fatal "out of memory"; it adds nothing to the collector's work; and freed
// blocks are reused at once, so short-lived small arrays cost no system call.
// Freed blocks are cleared when they are handed out again, so memory is always
// zero-filled. A slab whose blocks are all free is unmapped, unless the
// allocator keeps it for reuse (up to slabCacheLimit bytes of empty slabs).
//
// Every slab starts at a multiple of slabBytes, so the slab of a block is
// found from its address alone; classes of slabBytes and more have one block
// per slab.
//
// The zero value is ready to use; a SlabAllocator must not be copied after
// first use. It is safe for concurrent use.
type SlabAllocator struct {
	mu      sync.Mutex
	slabs   map[uintptr]*slab // by base address
	partial [numSlabClasses]*slab
	empty   int // bytes of slabs with no block handed out, kept mapped
}

const (
	// slabBytes is the size and alignment of a slab of small blocks.
	slabBytes = 64 << 10
	// slabMaxSize is the largest size a SlabAllocator serves (exclusive).
	slabMaxSize = 1 << 20
	// slabCacheLimit bounds the bytes of empty slabs kept for reuse.
	slabCacheLimit = 32 << 20
	// numSlabClasses counts the classes 64, 128, 192, 256, 384, ..., 1 MiB.
	numSlabClasses = 28
	// slabWords is the bitmap size of a slab of the smallest class.
	slabWords = slabBytes / alignment / 64
)

// slab is one mapping carved into blocks of one class. It is in its class's
// partial list (prev/next) while it has a free block.
type slab struct {
	base       unsafe.Pointer // off the Go heap
	bytes      int            // of the mapping
	class      int            // index into slabClassSize
	size       int            // block size
	nblk, used int
	hint       int // first bitmap word that may have a free block
	alloc      [slabWords]uint64
	dirty      [slabWords]uint64 // freed since mapped: clear before reuse
	prev, next *slab
	listed     bool
}

// slabClassSize[i] is the block size of class i.
var slabClassSize = func() (s [numSlabClasses]int) {
	s[0] = alignment
	for i, c := 1, 2*alignment; i < numSlabClasses; c *= 2 {
		s[i] = c
		if i+1 < numSlabClasses {
			s[i+1] = c * 3 / 2
		}
		i += 2
	}
	return s
}()

// slabClass returns the index of the smallest class holding size bytes.
func slabClass(size int) int {
	if size <= alignment {
		return 0
	}
	k := bits.Len(uint(size-1)) - 1 // 2^k < size <= 2^(k+1), k >= 6
	if k == 6 {
		return 1 // 128
	}
	i := 1 + 2*(k-7) // the class 2^k; then 1.5·2^k, then 2^(k+1)
	if size <= slabClassSize[i]*3/2 {
		return i + 1
	}
	return i + 2
}

// Name returns "slab".
func (a *SlabAllocator) Name() string { return "slab" }

// Allocate returns size zero bytes, 64-byte aligned, from a slab.
func (a *SlabAllocator) Allocate(size int) ([]byte, error) { return a.allocate(size, true) }

// AllocateUninit is Allocate without clearing a reused block: its bytes are
// what the block last held (UninitAllocator).
func (a *SlabAllocator) AllocateUninit(size int) ([]byte, error) { return a.allocate(size, false) }

// allocate takes a block of size's class, cleared first (its first size bytes:
// the rest of the block is cleared by whichever allocation uses it) if zero is
// set and the block was handed out before.
func (a *SlabAllocator) allocate(size int, zero bool) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("memview: slab allocator: negative size %d: %w", size, ErrInvalid)
	}
	if size >= slabMaxSize {
		return nil, fmt.Errorf("memview: slab allocator: %d bytes is not below %d: %w", size, slabMaxSize, ErrInvalid)
	}
	ci := slabClass(size)
	a.mu.Lock()
	s := a.partial[ci]
	if s == nil {
		var err error
		if s, err = a.newSlab(ci); err != nil {
			a.mu.Unlock()
			return nil, err
		}
	}
	if s.used == 0 {
		a.empty -= s.bytes
	}
	k, dirty := s.take()
	if s.used == s.nblk {
		a.unlist(s)
	}
	a.mu.Unlock()
	p := unsafe.Add(s.base, k*s.size)
	b := unsafe.Slice((*byte)(p), size)
	if dirty && zero {
		clear(b)
	}
	return b, nil
}

// newSlab maps a slab of class ci, aligned to slabBytes, and lists it.
// Called with a.mu held.
func (a *SlabAllocator) newSlab(ci int) (*slab, error) {
	size := slabClassSize[ci]
	n := max(size, slabBytes)
	p, err := mapAligned(n, slabBytes)
	if err != nil {
		return nil, fmt.Errorf("memview: slab allocator: cannot map a %s slab for %s blocks: %w", sizeText(uint64(n)), sizeText(uint64(size)), err)
	}
	s := &slab{base: p, bytes: n, class: ci, size: size, nblk: n / size}
	if a.slabs == nil {
		a.slabs = make(map[uintptr]*slab)
	}
	a.slabs[uintptr(p)] = s
	a.empty += n
	a.list(s)
	return s, nil
}

// take marks a free block allocated and returns its index and whether it was
// written since the slab was mapped.
func (s *slab) take() (int, bool) {
	for w := s.hint; ; w++ {
		if free := ^s.alloc[w]; free != 0 {
			bit := bits.TrailingZeros64(free)
			k := w*64 + bit
			if k >= s.nblk {
				break
			}
			s.alloc[w] |= 1 << bit
			dirty := s.dirty[w]&(1<<bit) != 0
			s.dirty[w] &^= 1 << bit
			s.used++
			s.hint = w
			return k, dirty
		}
	}
	panic("memview: slab allocator: a listed slab has no free block")
}

// Free returns the block starting at b's first byte to its slab. b must be
// the slice Allocate returned (its length picks the class).
func (a *SlabAllocator) Free(b []byte) error {
	if !a.tryFree(b) {
		return fmt.Errorf("memview: slab allocator: free of unknown slice at %#x: %w", sliceAddr(b), ErrInvalid)
	}
	return nil
}

// tryFree frees b if it is a live allocation of a and reports whether it was.
func (a *SlabAllocator) tryFree(b []byte) bool {
	addr := sliceAddr(b)
	if addr == 0 || len(b) >= slabMaxSize {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, k := a.find(addr)
	if s == nil || s.class != slabClass(len(b)) {
		return false
	}
	w, bit := k/64, uint(k%64)
	s.alloc[w] &^= 1 << bit
	s.dirty[w] |= 1 << bit
	s.used--
	s.hint = min(s.hint, w)
	if !s.listed {
		a.list(s)
	}
	if s.used == 0 {
		if a.empty+s.bytes > slabCacheLimit {
			a.unlist(s)
			delete(a.slabs, uintptr(s.base))
			unmap(s.base, s.bytes)
		} else {
			a.empty += s.bytes
		}
	}
	return true
}

// find returns the slab and block index of a live block at addr, or nil.
// Called with a.mu held.
func (a *SlabAllocator) find(addr uintptr) (*slab, int) {
	s := a.slabs[addr&^(slabBytes-1)]
	if s == nil {
		return nil, 0
	}
	off := int(addr - uintptr(s.base))
	if off%s.size != 0 {
		return nil, 0
	}
	k := off / s.size
	if k >= s.nblk || s.alloc[k/64]&(1<<uint(k%64)) == 0 {
		return nil, 0
	}
	return s, k
}

// list puts s at the head of its class's partial list.
func (a *SlabAllocator) list(s *slab) {
	head := a.partial[s.class]
	s.prev, s.next, s.listed = nil, head, true
	if head != nil {
		head.prev = s
	}
	a.partial[s.class] = s
}

// unlist takes s out of its class's partial list.
func (a *SlabAllocator) unlist(s *slab) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		a.partial[s.class] = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	}
	s.prev, s.next, s.listed = nil, nil, false
}

// mapAligned maps n bytes of zeroed anonymous memory starting at a multiple of
// align (a power of two, a multiple of the page size): it maps n+align bytes
// and unmaps the excess on both sides.
func mapAligned(n, align int) (unsafe.Pointer, error) {
	p, err := mapAnon(n + align)
	if err != nil {
		return nil, err
	}
	lead := int((uintptr(align) - uintptr(p)%uintptr(align)) % uintptr(align))
	if lead > 0 {
		unmap(p, lead)
	}
	if tail := align - lead; tail > 0 {
		unmap(unsafe.Add(p, lead+n), tail)
	}
	return unsafe.Add(p, lead), nil
}
