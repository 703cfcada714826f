package memview

import (
	"errors"
	"testing"
	"unsafe"
)

func TestBufferRefsAndExports(t *testing.T) {
	p := newTestPool(t)
	b, err := NewBuffer(p, 100)
	if err != nil {
		t.Fatal(err)
	}
	if b.Refs() != 1 || b.Len() != 100 || !b.Mutable() || len(b.Bytes()) != 100 || b.Released() {
		t.Fatalf("new buffer: refs %d len %d mutable %t bytes %d released %t", b.Refs(), b.Len(), b.Mutable(), len(b.Bytes()), b.Released())
	}
	if b.Pointer() != unsafe.Pointer(&b.Bytes()[0]) {
		t.Fatal("Pointer is not the first byte")
	}
	b.Retain()
	if b.Refs() != 2 {
		t.Fatalf("refs %d after Retain", b.Refs())
	}
	if err := b.Release(); err != nil || b.Refs() != 1 {
		t.Fatalf("Release: %v, refs %d", err, b.Refs())
	}
	b.Export()
	if err := b.Release(); !errors.Is(err, ErrExported) {
		t.Fatalf("Release with an export: %v, want ErrExported", err)
	}
	if b.Refs() != 1 || b.Released() || b.Exports() != 1 || p.BytesAllocated() != 128 { // the capacity: 100 rounded up to 64
		t.Fatalf("after refused Release: refs %d released %t exports %d bytes %d", b.Refs(), b.Released(), b.Exports(), p.BytesAllocated())
	}
	b.Bytes()[99] = 7 // still usable
	if err := b.Unexport(); err != nil {
		t.Fatal(err)
	}
	if err := b.Unexport(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Unexport with no export: %v, want ErrInvalid", err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if !b.Released() || b.Refs() != 0 || b.Bytes() != nil || p.BytesAllocated() != 0 {
		t.Fatalf("after last Release: released %t refs %d bytes %v pool %d", b.Released(), b.Refs(), b.Bytes() != nil, p.BytesAllocated())
	}
	if err := b.Release(); !errors.Is(err, ErrReleased) {
		t.Fatalf("second Release: %v, want ErrReleased", err)
	}
	for _, tc := range []struct {
		name string
		fn   func()
		msg  string
	}{
		{"retain", b.Retain, "memview: Retain of released Buffer"},
		{"export", b.Export, "memview: Export of released Buffer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Fatalf("panic %v, want %q", r, tc.msg)
				}
			}()
			tc.fn()
		})
	}
}

func TestWrapExternal(t *testing.T) {
	mem := make([]byte, 32)
	for _, tc := range []struct {
		name     string
		p        unsafe.Pointer
		size     int
		readonly bool
	}{
		{"writable", unsafe.Pointer(&mem[0]), 32, false},
		{"readonly", unsafe.Pointer(&mem[0]), 32, true},
		{"empty nil", nil, 0, false},
		{"no release func", unsafe.Pointer(&mem[0]), 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var fn func()
			if tc.name != "no release func" {
				fn = func() { calls++ }
			}
			b := WrapExternal(tc.p, tc.size, tc.readonly, fn)
			if b.Mutable() == tc.readonly || b.Len() != tc.size || b.Pointer() != tc.p || len(b.Bytes()) != tc.size {
				t.Fatalf("mutable %t len %d", b.Mutable(), b.Len())
			}
			a, err := NewArray(b, Uint8, []int{tc.size}, []int{1}, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if a.ReadOnly() != tc.readonly {
				t.Errorf("array readonly %t, want %t", a.ReadOnly(), tc.readonly)
			}
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
			if calls != 0 || b.Released() {
				t.Fatal("released while an array holds a reference")
			}
			if err := a.Release(); err != nil {
				t.Fatal(err)
			}
			if fn != nil && calls != 1 {
				t.Fatalf("release func called %d times, want 1", calls)
			}
			if !b.Released() {
				t.Fatal("not released")
			}
		})
	}
}

func TestArrayReleaseWithExports(t *testing.T) {
	p := newTestPool(t)
	a, err := Empty(p, []int{4}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	v, err := a.Index(SliceStep(-1))
	if err != nil {
		t.Fatal(err)
	}
	if a.Buffer().Refs() != 2 {
		t.Fatalf("refs %d, want 2 (array and view)", a.Buffer().Refs())
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); !errors.Is(err, ErrReleased) {
		t.Fatalf("second Release: %v, want ErrReleased", err)
	}
	if _, err := a.Index(Int(0)); !errors.Is(err, ErrReleased) {
		t.Fatalf("Index of released array: %v, want ErrReleased", err)
	}
	if err := v.SetFloat64(5, 0); err != nil { // the view keeps the buffer alive
		t.Fatal(err)
	}
	v.Buffer().Export()
	if err := v.Release(); !errors.Is(err, ErrExported) {
		t.Fatalf("Release with an export: %v, want ErrExported", err)
	}
	if v.Released() {
		t.Fatal("view marked released although its reference was kept")
	}
	if got, _ := v.Float64(0); got != 5 {
		t.Fatalf("view reads %v after refused Release", got)
	}
	if err := v.Buffer().Unexport(); err != nil {
		t.Fatal(err)
	}
	if err := v.Release(); err != nil {
		t.Fatal(err)
	}
	if p.BytesAllocated() != 0 {
		t.Fatalf("pool has %d bytes", p.BytesAllocated())
	}
}

func TestBufferConcurrentRefs(t *testing.T) {
	p := newTestPool(t)
	a, err := Empty(p, []int{64}, Uint8, 'C')
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 100; i++ {
				v, err := a.Index(Slice(i%64, 64, 1))
				if err != nil {
					done <- err
					return
				}
				v.Buffer().Export()
				_ = v.Buffer().Unexport()
				if err := v.Release(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if a.Buffer().Refs() != 1 || a.Buffer().Exports() != 0 {
		t.Fatalf("refs %d exports %d", a.Buffer().Refs(), a.Buffer().Exports())
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
}

// testState records when it is closed, and whether the memory was still
// allocated then.
type testState struct {
	closes int
	pool   *Pool
	live   int64
	err    error
}

func (s *testState) Close() error {
	s.closes++
	s.live = s.pool.NumLive()
	return s.err
}

// Device state belongs to the memory: one per buffer (the first attached
// wins), shared by every view, closed once when the last reference goes and
// before the memory is freed; a Close error is reported, and the memory is
// still freed.
func TestBufferDeviceState(t *testing.T) {
	p := newTestPool(t)
	b, err := NewBuffer(p, 64)
	if err != nil {
		t.Fatal(err)
	}
	if b.DeviceState() != nil {
		t.Fatal("a new buffer has no device state")
	}
	first, second := &testState{pool: p}, &testState{pool: p}
	if got := b.AttachDeviceState(first); got != DeviceState(first) {
		t.Fatal("the first state attached is not kept")
	}
	if got := b.AttachDeviceState(second); got != DeviceState(first) || b.DeviceState() != DeviceState(first) {
		t.Fatal("a second state replaced the first")
	}
	a, err := NewArray(b, Uint8, []int{64}, nil, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := a.Index(Slice(0, 64, 2))
	if err != nil {
		t.Fatal(err)
	}
	if v.Buffer().DeviceState() != DeviceState(first) {
		t.Fatal("a view does not see its memory's state")
	}
	for _, r := range []interface{ Release() error }{b, a} {
		if err := r.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if first.closes != 0 {
		t.Fatal("closed while a view still refers to the memory")
	}
	if err := v.Release(); err != nil {
		t.Fatal(err)
	}
	if first.closes != 1 || second.closes != 0 || first.live != 1 || p.NumLive() != 0 {
		t.Fatalf("closes %d/%d, %d allocation(s) live at Close, %d after", first.closes, second.closes, first.live, p.NumLive())
	}

	b, err = NewBuffer(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	failing := &testState{pool: p, err: errors.New("device fault")}
	b.AttachDeviceState(failing)
	if err := b.Release(); err == nil || !errors.Is(err, failing.err) || p.NumLive() != 0 {
		t.Fatalf("release with a failing Close: %v, %d live", err, p.NumLive())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("attaching to a released buffer does not panic")
		}
	}()
	b.AttachDeviceState(first)
}
