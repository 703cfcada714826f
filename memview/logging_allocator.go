package memview

import (
	"fmt"
	"io"
	"os"
)

var _ Reallocator = (*LoggingAllocator)(nil)

// LoggingAllocator wraps an Allocator and logs every allocate, reallocate
// and free — size, address, and the error of a failure — as one line each
// (Arrow's LoggingMemoryPool). Wrap it in a Pool to give it statistics:
// NewLoggingPool. It is safe for concurrent use if Log is.
type LoggingAllocator struct {
	inner Allocator
	// Log receives each line, without a newline. It is called with no lock
	// of the allocator held.
	Log func(line string)
}

// NewLoggingAllocator returns a LoggingAllocator over a that writes its lines
// to w (nil: os.Stderr).
func NewLoggingAllocator(a Allocator, w io.Writer) *LoggingAllocator {
	if w == nil {
		w = os.Stderr
	}
	return &LoggingAllocator{inner: a, Log: func(line string) { fmt.Fprintln(w, line) }}
}

// NewLoggingPool returns a pool over a LoggingAllocator over a (nil: the
// default pool) that writes to w (nil: os.Stderr).
func NewLoggingPool(a Allocator, w io.Writer) *Pool {
	if a == nil {
		a = DefaultPool()
	}
	return NewPool(NewLoggingAllocator(a, w))
}

// Name returns the wrapped allocator's name.
func (l *LoggingAllocator) Name() string { return l.inner.Name() }

// Device is where the wrapped allocator's memory lives.
func (l *LoggingAllocator) Device() Device { return deviceOf(l.inner) }

// Allocate allocates through the wrapped allocator and logs it.
func (l *LoggingAllocator) Allocate(size int) ([]byte, error) {
	b, err := l.inner.Allocate(size)
	if err != nil {
		l.Log(fmt.Sprintf("memview: %s: allocate %d bytes failed: %v", l.Name(), size, err))
		return nil, err
	}
	l.Log(fmt.Sprintf("memview: %s: allocate %d bytes at %#x", l.Name(), size, sliceAddr(b)))
	return b, nil
}

// Reallocate reallocates through the wrapped allocator and logs it.
func (l *LoggingAllocator) Reallocate(b []byte, size int) ([]byte, error) {
	nb, err := reallocate(l.inner, b, size)
	if err != nil {
		l.Log(fmt.Sprintf("memview: %s: reallocate %d bytes at %#x to %d bytes failed: %v", l.Name(), len(b), sliceAddr(b), size, err))
		return nil, err
	}
	l.Log(fmt.Sprintf("memview: %s: reallocate %d bytes at %#x to %d bytes at %#x", l.Name(), len(b), sliceAddr(b), size, sliceAddr(nb)))
	return nb, nil
}

// Free frees through the wrapped allocator and logs it.
func (l *LoggingAllocator) Free(b []byte) error {
	if err := l.inner.Free(b); err != nil {
		l.Log(fmt.Sprintf("memview: %s: free %d bytes at %#x failed: %v", l.Name(), len(b), sliceAddr(b), err))
		return err
	}
	l.Log(fmt.Sprintf("memview: %s: free %d bytes at %#x", l.Name(), len(b), sliceAddr(b)))
	return nil
}
