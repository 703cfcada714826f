package memview

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestDTypeOf(t *testing.T) {
	for _, c := range []struct {
		got, want DType
	}{
		{DTypeOf[bool](), Bool}, {DTypeOf[int8](), Int8}, {DTypeOf[int16](), Int16},
		{DTypeOf[int32](), Int32}, {DTypeOf[int64](), Int64}, {DTypeOf[uint8](), Uint8},
		{DTypeOf[uint16](), Uint16}, {DTypeOf[uint32](), Uint32}, {DTypeOf[uint64](), Uint64},
		{DTypeOf[float32](), Float32}, {DTypeOf[float64](), Float64},
		{DTypeOf[complex64](), Complex64}, {DTypeOf[complex128](), Complex128},
	} {
		if c.got != c.want {
			t.Errorf("DTypeOf = %s, want %s", c.got, c.want)
		}
	}
}

// newViewAs makes a View[T] of a for the T whose DType is dt, and returns
// NewView's error (Float16 has no T: it tries uint16).
func newViewAs(dt DType, a *Array) error {
	var err error
	switch dt {
	case Bool:
		_, err = NewView[bool](a)
	case Int8:
		_, err = NewView[int8](a)
	case Int16:
		_, err = NewView[int16](a)
	case Int32:
		_, err = NewView[int32](a)
	case Int64:
		_, err = NewView[int64](a)
	case Uint8:
		_, err = NewView[uint8](a)
	case Uint16, Float16:
		_, err = NewView[uint16](a)
	case Uint32:
		_, err = NewView[uint32](a)
	case Uint64:
		_, err = NewView[uint64](a)
	case Float32:
		_, err = NewView[float32](a)
	case Float64:
		_, err = NewView[float64](a)
	case Complex64:
		_, err = NewView[complex64](a)
	case Complex128:
		_, err = NewView[complex128](a)
	}
	return err
}

// TestNewViewType: a View[T] is made exactly when the array's dtype is T's;
// float16 has none (not even uint16), bool is not uint8.
func TestNewViewType(t *testing.T) {
	p := newTestPool(t)
	for _, have := range DTypes() {
		a := must(t)(Empty(p, []int{2, 3}, have, 'C'))
		for _, as := range DTypes() {
			err := newViewAs(as, a)
			tdt := as // the DType of the T newViewAs tried
			if as == Float16 {
				tdt = Uint16
			}
			ok := have == tdt
			if (err == nil) != ok || (err != nil && !errors.Is(err, ErrType)) {
				t.Errorf("View of a %s array as %s: %v, want ok=%t", have, as, err, ok)
			}
		}
	}
}

func TestNewViewRefusals(t *testing.T) {
	p := newTestPool(t)
	if _, err := NewView[float64](nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("View of nil: %v", err)
	}
	a, err := Empty(p, []int{3}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewView[float64](a); !errors.Is(err, ErrReleased) {
		t.Errorf("View of a released array: %v", err)
	}

	dev := WrapDevice(0x7f0000000000, 64, false, Device{Kind: CUDA}, nil)
	d, err := NewArray(dev, Float64, []int{8}, nil, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	release(t, d)
	if err := dev.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewView[float64](d); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cuda:0") {
		t.Errorf("View of CUDA memory: %v", err)
	}
	managed := WrapDevice(0x7f0000000000, 64, false, Device{Kind: CUDAManaged}, nil)
	m := must(t)(NewArray(managed, Float64, []int{8}, nil, 0, false))
	if err := managed.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewView[float64](m); err != nil {
		t.Errorf("View of managed memory (host-accessible): %v", err)
	}

	buf, err := NewBuffer(p, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		shape   []int
		strides []int
		offset  int
		ok      bool
	}{
		{"aligned", []int{4}, []int{4}, 4, true},
		{"odd offset", []int{4}, []int{4}, 1, false},
		{"odd stride", []int{4}, []int{5}, 0, false},
		{"odd stride on a dim of 1", []int{1, 4}, []int{3, 4}, 0, true},
		{"odd offset but empty", []int{0, 4}, []int{16, 4}, 3, true},
	} {
		a := must(t)(NewArray(buf, Int32, c.shape, c.strides, c.offset, false))
		if _, err := NewView[int32](a); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("%s: %v, want ok=%t", c.name, err, c.ok)
		}
	}
	bytesAny := must(t)(NewArray(buf, Uint8, []int{7}, []int{3}, 1, false))
	if _, err := NewView[uint8](bytesAny); err != nil {
		t.Errorf("bytes need no alignment: %v", err)
	}
	if err := buf.Release(); err != nil {
		t.Fatal(err)
	}
}

// decodeItem reads one element of dt from its little-endian bytes, as the
// Go value a View of dt returns: the reference At is checked against.
func decodeItem(dt DType, b []byte) any {
	le := binary.LittleEndian
	switch dt {
	case Bool:
		return b[0] != 0
	case Int8:
		return int8(b[0])
	case Int16:
		return int16(le.Uint16(b))
	case Int32:
		return int32(le.Uint32(b))
	case Int64:
		return int64(le.Uint64(b))
	case Uint8:
		return b[0]
	case Uint16:
		return le.Uint16(b)
	case Uint32:
		return le.Uint32(b)
	case Uint64:
		return le.Uint64(b)
	case Float32:
		return math.Float32frombits(le.Uint32(b))
	case Float64:
		return math.Float64frombits(le.Uint64(b))
	case Complex64:
		return complex(math.Float32frombits(le.Uint32(b)), math.Float32frombits(le.Uint32(b[4:])))
	case Complex128:
		return complex(math.Float64frombits(le.Uint64(b)), math.Float64frombits(le.Uint64(b[8:])))
	}
	panic("decodeItem: " + dt.String())
}

// fromInt returns a T made from k: k%2 == 1 for bool, (k, -k) for complex
// types, a conversion otherwise.
func fromInt[T Element](k int) T {
	var z T
	var v any
	switch any(z).(type) {
	case bool:
		v = k%2 == 1
	case int8:
		v = int8(k)
	case int16:
		v = int16(k)
	case int32:
		v = int32(k)
	case int64:
		v = int64(k)
	case uint8:
		v = uint8(k)
	case uint16:
		v = uint16(k)
	case uint32:
		v = uint32(k)
	case uint64:
		v = uint64(k)
	case float32:
		v = float32(k) + 0.25
	case float64:
		v = float64(k) + 0.125
	case complex64:
		v = complex(float32(k), float32(-k))
	case complex128:
		v = complex(float64(k), float64(-k))
	}
	return v.(T)
}

// viewLayouts returns views of a 4x6 array base with distinct elements:
// C, F (transposed), strided, negative strides on either axis, 3-D
// permuted, 0-d and empty.
func viewLayouts(t *testing.T, base *Array) map[string]*Array {
	t.Helper()
	m := must(t)
	cube := m(base.Reshape(2, 3, 4))
	return map[string]*Array{
		"C":                m(base.Index()),
		"F":                m(base.Transpose()),
		"strided":          m(base.Index(Slice(0, 4, 2), Slice(1, 6, 2))),
		"reversed rows":    m(base.Index(SliceStep(-1))),
		"reversed columns": m(base.Index(Full(), SliceStep(-2))),
		"reversed both T":  m(m(base.Index(SliceStep(-1), SliceStep(-1))).Transpose()),
		"3-d permuted":     m(m(cube.Transpose(2, 0, 1)).Index(Full(), SliceStep(-1))),
		"1-d column":       m(base.Index(Full(), Int(3))),
		"newaxis":          m(base.Index(Int(1), NewAxis(), Slice(0, 6, 3))),
		"0-d":              m(base.Index(Int(2), Int(5))),
		"empty":            m(base.Index(Slice(1, 1, 1))),
	}
}

// distinctBase returns a 4x6 C array of dt with element i holding i (and
// -i as the imaginary part of complex types), released when the test ends.
func distinctBase(t *testing.T, p *Pool, dt DType) *Array {
	t.Helper()
	base := arange(t, p, dt, 4, 6)
	if dt.Kind() == 'c' {
		half := dt.Itemsize() / 2
		for i, idx := range indices(base.Shape()) {
			b, err := base.ItemBytes(idx...)
			if err != nil {
				t.Fatal(err)
			}
			if half == 4 {
				binary.LittleEndian.PutUint32(b[4:], math.Float32bits(float32(-i)))
			} else {
				binary.LittleEndian.PutUint64(b[8:], math.Float64bits(float64(-i)))
			}
		}
	}
	return base
}

// checkView checks At, Get, All, Set, Put and Apply of a View[T] over every
// layout of viewLayouts against ItemBytes and Float64.
func checkView[T Element](t *testing.T) {
	dt := DTypeOf[T]()
	t.Run(dt.String(), func(t *testing.T) {
		p := newTestPool(t)
		base := distinctBase(t, p, dt)
		for name, a := range viewLayouts(t, base) {
			v, err := NewView[T](a)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(v.Shape(), a.Shape()) || !slices.Equal(v.Strides(), a.Strides()) ||
				v.NDim() != a.NDim() || v.Len() != a.Size() || v.Array() != a || v.ReadOnly() {
				t.Fatalf("%s: view metadata %v %v, array %v", name, v.Shape(), v.Strides(), a)
			}
			// Reads.
			all := indices(a.Shape())
			if a.Size() == 0 {
				all = nil
			}
			for _, idx := range all {
				b, _ := a.ItemBytes(idx...)
				want := decodeItem(dt, b)
				if got := v.At(idx...); any(got) != want {
					t.Fatalf("%s: At%v = %v, want %v", name, idx, got, want)
				}
				if got, err := v.Get(idx...); err != nil || any(got) != want {
					t.Fatalf("%s: Get%v = %v, %v; want %v", name, idx, got, err, want)
				}
				if dt.Kind() != 'c' {
					f, _ := a.Float64(idx...)
					var g float64
					switch x := any(v.At(idx...)).(type) {
					case bool:
						if x {
							g = 1
						}
					default:
						g = toFloat(x)
					}
					if g != f {
						t.Fatalf("%s: At%v = %v, Float64 = %v", name, idx, g, f)
					}
				}
			}
			var seen [][]int
			for idx, x := range v.All() {
				if any(x) != any(v.At(idx...)) {
					t.Fatalf("%s: All yields %v at %v, At gives %v", name, x, idx, v.At(idx...))
				}
				seen = append(seen, slices.Clone(idx))
			}
			if len(seen) != len(all) || (len(all) > 0 && !slices.EqualFunc(seen, all, slices.Equal)) {
				t.Fatalf("%s: All visits %v, want %v in C order", name, seen, all)
			}
		}
		// Writes go exactly to the viewed elements; the rest of base is
		// untouched.
		for name, a := range viewLayouts(t, base) {
			v, _ := NewView[T](a)
			before := decodedItems(t, base)
			reached := map[uintptr]bool{}
			k := 100
			for idx := range v.All() {
				b, _ := a.ItemBytes(idx...)
				reached[uintptr(unsafe.Pointer(&b[0]))] = true
				if k%2 == 0 {
					v.Set(fromInt[T](k), idx...)
				} else if err := v.Put(fromInt[T](k), idx...); err != nil {
					t.Fatal(err)
				}
				if b2, _ := a.ItemBytes(idx...); decodeItem(dt, b2) != any(fromInt[T](k)) {
					t.Fatalf("%s: Set%v %v reads back %v", name, idx, fromInt[T](k), decodeItem(dt, b2))
				}
				k++
			}
			for i, idx := range indices(base.Shape()) {
				b, _ := base.ItemBytes(idx...)
				if !reached[uintptr(unsafe.Pointer(&b[0]))] && decodeItem(dt, b) != before[i] {
					t.Fatalf("%s: Set changed base%v, outside the view", name, idx)
				}
			}
			// Apply replaces each element by a function of its index.
			err := v.Apply(func(idx []int, x T) T {
				s := 0
				for _, i := range idx {
					s = 10*s + i
				}
				return fromInt[T](s)
			})
			if err != nil {
				t.Fatal(err)
			}
			for idx, x := range v.All() {
				s := 0
				for _, i := range idx {
					s = 10*s + i
				}
				if any(x) != any(fromInt[T](s)) {
					t.Fatalf("%s: Apply left %v at %v", name, x, idx)
				}
			}
		}
	})
}

// decodedItems decodes every element of a in C order.
func decodedItems(t *testing.T, a *Array) []any {
	t.Helper()
	var out []any
	for _, idx := range indices(a.Shape()) {
		b, err := a.ItemBytes(idx...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decodeItem(a.DType(), b))
	}
	return out
}

// toFloat converts a real Element value to float64.
func toFloat(x any) float64 {
	switch x := x.(type) {
	case int8:
		return float64(x)
	case int16:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint8:
		return float64(x)
	case uint16:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	}
	panic(fmt.Sprintf("toFloat(%T)", x))
}

func TestViewReadsAndWrites(t *testing.T) {
	checkView[bool](t)
	checkView[int8](t)
	checkView[int16](t)
	checkView[int32](t)
	checkView[int64](t)
	checkView[uint8](t)
	checkView[uint16](t)
	checkView[uint32](t)
	checkView[uint64](t)
	checkView[float32](t)
	checkView[float64](t)
	checkView[complex64](t)
	checkView[complex128](t)
}

func TestViewAllEdges(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int32, 3, 4)
	v, err := NewView[int32](a)
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for idx, x := range v.All() {
		idx[0] = 99 // the iterator counts in its own slice
		got = append(got, x)
		if len(got) == 6 {
			break
		}
	}
	if !slices.Equal(got, []int32{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("All with a break and a scribbled index: %v", got)
	}
	// Apply writes where the walk is, whatever fn does to the index.
	err = v.Apply(func(idx []int, x int32) int32 {
		idx[0] = 0
		return x + 100
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, a); !slices.Equal(got, floats(100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111)) {
		t.Fatalf("Apply with a scribbled index: %v", got)
	}
	for i, idx := range indices(a.Shape()) {
		if err := a.SetFloat64(float64(i), idx...); err != nil {
			t.Fatal(err)
		}
	}
	zero := must(t)(a.Index(Int(1), Int(2)))
	z, err := NewView[int32](zero)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for idx, x := range z.All() {
		if len(idx) != 0 || x != 6 || z.At() != 6 {
			t.Fatalf("0-d All yields %v, %v", idx, x)
		}
		n++
	}
	z.Set(-6)
	if err := z.Apply(func(idx []int, x int32) int32 { return x * 2 }); err != nil {
		t.Fatal(err)
	}
	if n != 1 || z.Len() != 1 || z.At() != -12 {
		t.Fatalf("0-d view: %d elements, Len %d, At %d", n, z.Len(), z.At())
	}
}

// TestViewBoolBytes: bytes other than 0 and 1 in a bool array (another
// producer's memory) read as true.
func TestViewBoolBytes(t *testing.T) {
	p := newTestPool(t)
	buf, err := NewBuffer(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf.Bytes(), []byte{0, 1, 2, 255})
	a := must(t)(NewArray(buf, Bool, []int{4}, nil, 0, false))
	if err := buf.Release(); err != nil {
		t.Fatal(err)
	}
	v, err := NewView[bool](a)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, true, true} {
		if got := v.At(i); got != want || (got && !(got == true)) {
			t.Errorf("At(%d) = %v, want %v", i, got, want)
		}
	}
	for idx, x := range v.All() {
		if x != (idx[0] > 0) {
			t.Errorf("All: %v at %v", x, idx)
		}
	}
}

// mustPanic runs f and checks that it panics with an error wrapping want
// whose message starts with "memview: ".
func mustPanic(t *testing.T, what string, want error, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, want) || !strings.HasPrefix(err.Error(), "memview: ") {
			t.Errorf("%s: panic %v, want a memview error wrapping %v", what, r, want)
		}
	}()
	f()
}

func TestViewPanicsAndErrors(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float64, 2, 3)
	v, err := NewView[float64](a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		idx  []int
		want error
	}{
		{"row out of range", []int{2, 0}, ErrIndex},
		{"column out of range", []int{0, 3}, ErrIndex},
		{"negative", []int{-1, 0}, ErrIndex},
		{"too few", []int{1}, ErrIndex},
		{"too many", []int{1, 1, 1}, ErrIndex},
	} {
		mustPanic(t, "At "+c.name, c.want, func() { v.At(c.idx...) })
		mustPanic(t, "Set "+c.name, c.want, func() { v.Set(1, c.idx...) })
		if _, err := v.Get(c.idx...); !errors.Is(err, c.want) {
			t.Errorf("Get %s: %v", c.name, err)
		}
		if err := v.Put(1, c.idx...); !errors.Is(err, c.want) {
			t.Errorf("Put %s: %v", c.name, err)
		}
	}
	mustPanic(t, "At message", ErrIndex, func() {
		defer func() {
			r := recover()
			if msg := r.(error).Error(); msg != "memview: index 7 is out of range for axis 1 with size 3" {
				t.Errorf("message %q", msg)
			}
			panic(r)
		}()
		v.At(1, 7)
	})

	ro, err := NewView[float64](must(t)(a.AsReadOnly()))
	if err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "Set read-only", ErrReadOnly, func() { ro.Set(1, 0, 0) })
	wantErr(t, ro.Put(1, 0, 0), ErrReadOnly)
	wantErr(t, ro.Apply(func(_ []int, x float64) float64 { return x }), ErrReadOnly)
	if !ro.ReadOnly() || ro.At(1, 2) != 5 {
		t.Fatal("read-only view cannot read")
	}

	var zero View[float64]
	mustPanic(t, "At on the zero View", ErrInvalid, func() { zero.At() })
	mustPanic(t, "All on the zero View", ErrInvalid, func() {
		for range zero.All() {
		}
	})
	if _, err := zero.Get(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Get on the zero View: %v", err)
	}
	wantErr(t, zero.Apply(func(_ []int, x float64) float64 { return x }), ErrInvalid)
	if zero.Len() != 0 || zero.NDim() != 0 {
		t.Error("zero View is not empty")
	}

	// Released: once the memory is gone everything refuses; while another
	// array keeps the buffer, At still works and Get refuses.
	b, err := Empty(p, []int{4}, Int64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.Index()
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewView[int64](b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if w.At(3) != 0 {
		t.Fatal("At with the buffer alive")
	}
	if _, err := w.Get(3); !errors.Is(err, ErrReleased) {
		t.Errorf("Get of a released array: %v", err)
	}
	if err := other.Release(); err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "At after the memory went back", ErrReleased, func() { w.At(0) })
	mustPanic(t, "Set after the memory went back", ErrReleased, func() { w.Set(1, 0) })
	mustPanic(t, "All after the memory went back", ErrReleased, func() {
		for range w.All() {
		}
	})
	wantErr(t, w.Put(1, 0), ErrReleased)
	wantErr(t, w.Apply(func(_ []int, x int64) int64 { return x }), ErrReleased)
}

// TestViewAllocs: At, Set, Get and Put allocate nothing; All allocates a
// fixed few objects per loop, not per element.
func TestViewAllocs(t *testing.T) {
	p := newTestPool(t)
	a := must(t)(arange(t, p, Float64, 8, 8).Index(SliceStep(-1), SliceStep(2)))
	v, err := NewView[float64](a)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	i, j := 3, 2
	for name, f := range map[string]func(){
		"At":  func() { s += v.At(i, j) },
		"Set": func() { v.Set(s, i, j) },
		"Get": func() { x, _ := v.Get(i, j); s += x },
		"Put": func() { _ = v.Put(s, i, j) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
	}
	n := testing.AllocsPerRun(100, func() {
		for _, x := range v.All() {
			s += x
		}
	})
	if n > 4 {
		t.Errorf("All: %v allocations per loop over %d elements", n, v.Len())
	}
}

// TestViewConcurrent: copies of one View write disjoint rows from several
// goroutines while others read their own rows (run with -race).
func TestViewConcurrent(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int32, 16, 64)
	v, err := NewView[int32](a)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for r := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := v
			for c := range 64 {
				w.Set(w.At(r, c)*2, r, c)
			}
		}()
	}
	wg.Wait()
	for idx, x := range v.All() {
		if want := int32(2 * (idx[0]*64 + idx[1])); x != want {
			t.Fatalf("%v = %d, want %d", idx, x, want)
		}
	}
}

// BenchmarkViewAt reads a 256x256 float64 array with reversed rows
// element by element through View.At.
func BenchmarkViewAt(b *testing.B) {
	p := NewPool(&HostAllocator{})
	a, _ := Empty(p, []int{256, 256}, Float64, 'C')
	r, _ := a.Index(SliceStep(-1))
	v, _ := NewView[float64](r)
	b.SetBytes(256 * 256 * 8)
	var s float64
	for b.Loop() {
		for i := range 256 {
			for j := range 256 {
				s += v.At(i, j)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(256*256), "ns/elem")
	_ = s
	_ = r.Release()
	_ = a.Release()
}

// BenchmarkViewAll reads the same array through View.All.
func BenchmarkViewAll(b *testing.B) {
	p := NewPool(&HostAllocator{})
	a, _ := Empty(p, []int{256, 256}, Float64, 'C')
	r, _ := a.Index(SliceStep(-1))
	v, _ := NewView[float64](r)
	b.SetBytes(256 * 256 * 8)
	var s float64
	for b.Loop() {
		for _, x := range v.All() {
			s += x
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(256*256), "ns/elem")
	_ = s
	_ = r.Release()
	_ = a.Release()
}

// stridedBench is a strided float64 view for BenchmarkViewStrided: every
// other element of a C array of twice the shape on each axis, so that no
// axis is contiguous, with its raw base pointer and strides.
type stridedBench struct {
	v       View[float64]
	base    unsafe.Pointer
	shape   []int
	strides []int
}

func newStridedBench(b *testing.B, shape ...int) stridedBench {
	p := NewPool(&HostAllocator{})
	full := make([]int, len(shape))
	steps := make([]Index, len(shape))
	for k, n := range shape {
		full[k], steps[k] = 2*n, SliceStep(2)
	}
	a, err := Empty(p, full, Float64, 'C')
	if err != nil {
		b.Fatal(err)
	}
	s, err := a.Index(steps...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Release(); _ = a.Release() })
	v, err := NewView[float64](s)
	if err != nil {
		b.Fatal(err)
	}
	for i := range v.All() {
		v.Set(1, i...)
	}
	return stridedBench{v, s.Pointer(), s.Shape(), s.Strides()}
}

// The loops BenchmarkViewStrided times, each as a user would write it in a
// function of its own (as the bound Scale of docs/go/api.md), so that what
// the compiler does with each is what it does in user code.

//go:noinline
func stridedRawScale(base unsafe.Pointer, n, step int, f float64) {
	for i := range n {
		p := (*float64)(unsafe.Add(base, i*step))
		*p *= f
	}
}

//go:noinline
func stridedRawSum(base unsafe.Pointer, n, step int) float64 {
	var s float64
	for i := range n {
		s += *(*float64)(unsafe.Add(base, i*step))
	}
	return s
}

//go:noinline
func stridedRawScale2(base unsafe.Pointer, n, m, s0, s1 int, f float64) {
	for i := range n {
		for j := range m {
			p := (*float64)(unsafe.Add(base, i*s0+j*s1))
			*p *= f
		}
	}
}

//go:noinline
func stridedRawSum2(base unsafe.Pointer, n, m, s0, s1 int) float64 {
	var s float64
	for i := range n {
		for j := range m {
			s += *(*float64)(unsafe.Add(base, i*s0+j*s1))
		}
	}
	return s
}

//go:noinline
func stridedApply(v View[float64], f float64) error {
	return v.Apply(func(_ []int, x float64) float64 { return x * f })
}

//go:noinline
func stridedAll(v View[float64]) float64 {
	var s float64
	for _, x := range v.All() {
		s += x
	}
	return s
}

//go:noinline
func stridedAt(v View[float64], n int) float64 {
	var s float64
	for i := range n {
		s += v.At(i)
	}
	return s
}

//go:noinline
func stridedAt2(v View[float64], n, m int) float64 {
	var s float64
	for i := range n {
		for j := range m {
			s += v.At(i, j)
		}
	}
	return s
}

// BenchmarkViewStrided compares View's element loops with the raw pointer
// loops they stand for, over a strided view of 1,000 float64 elements
// (1-D: every other element; 2-D: 25x40, every other row and column).
// rawScale is Apply's loop (x *= f in place), rawSum the loop All and At
// stand for (a sum).
func BenchmarkViewStrided(b *testing.B) {
	f := 1.0000001
	var sink float64
	b.Run("1d", func(b *testing.B) {
		s := newStridedBench(b, 1000)
		n, step := s.shape[0], s.strides[0]
		b.Run("rawScale", func(b *testing.B) {
			for b.Loop() {
				stridedRawScale(s.base, n, step, f)
			}
		})
		b.Run("Apply", func(b *testing.B) {
			for b.Loop() {
				_ = stridedApply(s.v, f)
			}
		})
		b.Run("rawSum", func(b *testing.B) {
			for b.Loop() {
				sink += stridedRawSum(s.base, n, step)
			}
		})
		b.Run("All", func(b *testing.B) {
			for b.Loop() {
				sink += stridedAll(s.v)
			}
		})
		b.Run("At", func(b *testing.B) {
			for b.Loop() {
				sink += stridedAt(s.v, n)
			}
		})
	})
	b.Run("2d", func(b *testing.B) {
		s := newStridedBench(b, 25, 40)
		n, m, s0, s1 := s.shape[0], s.shape[1], s.strides[0], s.strides[1]
		b.Run("rawScale", func(b *testing.B) {
			for b.Loop() {
				stridedRawScale2(s.base, n, m, s0, s1, f)
			}
		})
		b.Run("Apply", func(b *testing.B) {
			for b.Loop() {
				_ = stridedApply(s.v, f)
			}
		})
		b.Run("rawSum", func(b *testing.B) {
			for b.Loop() {
				sink += stridedRawSum2(s.base, n, m, s0, s1)
			}
		})
		b.Run("All", func(b *testing.B) {
			for b.Loop() {
				sink += stridedAll(s.v)
			}
		})
		b.Run("At", func(b *testing.B) {
			for b.Loop() {
				sink += stridedAt2(s.v, n, m)
			}
		})
	})
	_ = sink
}

// fastPathLayouts returns views of base (4x6, distinct elements) that take
// each of View's paths: 1-D (strided, reversed, single, empty), 0-d and
// N-d up to past rowsScratch (5-D), empty ones included.
func fastPathLayouts(t *testing.T, base *Array) map[string]*Array {
	t.Helper()
	m := must(t)
	flat := m(base.Reshape(24))
	layouts := viewLayouts(t, base)
	for name, a := range map[string]*Array{
		"1-d C":            flat,
		"1-d step 2":       m(flat.Index(SliceStep(2))),
		"1-d reversed":     m(flat.Index(SliceStep(-1))),
		"1-d step -3":      m(flat.Index(SliceStep(-3))),
		"1-d single":       m(flat.Index(Slice(5, 6, 1))),
		"1-d empty":        m(flat.Index(Slice(3, 3, 1))),
		"2-d strided":      m(base.Index(SliceStep(2), SliceStep(-2))),
		"4-d":              m(base.Reshape(2, 2, 3, 2)),
		"5-d":              m(base.Reshape(1, 2, 2, 3, 2)),
		"5-d reversed":     m(m(base.Reshape(2, 1, 2, 3, 2)).Index(SliceStep(-1), Full(), Full(), SliceStep(-1))),
		"5-d empty":        m(m(base.Reshape(2, 1, 2, 3, 2)).Index(Full(), Full(), Slice(1, 1, 1))),
		"0-d of a 1-d":     m(flat.Index(Int(7))),
		"1-d of a 2-d row": m(base.Index(Int(2), SliceStep(-1))),
	} {
		layouts[name] = a
	}
	return layouts
}

// collectAll runs seq as a function value (not inlined into a range loop)
// and returns the indexes and values it yields, scribbling on the last
// entry of each index.
//
//go:noinline
func collectAll[T Element](seq func(func([]int, T) bool)) (idx [][]int, xs []T) {
	seq(func(i []int, x T) bool {
		idx, xs = append(idx, slices.Clone(i)), append(xs, x)
		scribble(i)
		return true
	})
	return idx, xs
}

// scribble changes the last entry of idx, the one All and Apply set for
// every element. (Other entries are set once a row, as they always were:
// changed, they stay changed until the next row.)
func scribble(idx []int) {
	if len(idx) > 0 {
		idx[len(idx)-1] = -7
	}
}

// applyVia calls v.Apply with fn a parameter, not a func literal.
//
//go:noinline
func applyVia[T Element](v View[T], fn func([]int, T) T) error { return v.Apply(fn) }

// checkFastPaths checks At, All and Apply of a View[T] of a, however they
// are compiled (inlined with a func literal, or called through function
// values), against the C-order indices and ItemBytes.
func checkFastPaths[T Element](t *testing.T, name string, a *Array) {
	t.Helper()
	dt := DTypeOf[T]()
	v, err := NewView[T](a)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var all [][]int
	var want []T
	if a.Size() > 0 {
		all = indices(a.Shape())
	}
	for _, idx := range all {
		b, _ := a.ItemBytes(idx...)
		want = append(want, decodeItem(dt, b).(T))
	}
	same := func(what string, gotIdx [][]int, got []T) {
		t.Helper()
		if !slices.EqualFunc(gotIdx, all, slices.Equal) || !slices.Equal(got, want) {
			t.Fatalf("%s %s: visits %v with %v, want %v with %v", name, what, gotIdx, got, all, want)
		}
	}

	// At, through the variadic slice, and with literal indexes for 1-D.
	for k, idx := range all {
		if got := v.At(idx...); got != want[k] {
			t.Fatalf("%s: At%v = %v, want %v", name, idx, got, want[k])
		}
		if len(idx) == 1 && v.At(idx[0]) != want[k] {
			t.Fatalf("%s: At(%d) = %v, want %v", name, idx[0], v.At(idx[0]), want[k])
		}
	}
	// All, inlined into a range loop (scribbling on the index, and
	// breaking early) and called as a function value.
	var gotIdx [][]int
	var got []T
	for idx, x := range v.All() {
		gotIdx, got = append(gotIdx, slices.Clone(idx)), append(got, x)
		scribble(idx)
	}
	same("All", gotIdx, got)
	got = got[:0]
	for idx, x := range v.All() {
		got = append(got, x)
		for k := range idx {
			idx[k] = -7 // all of it: the walk goes on regardless
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: All with the whole index scribbled on yields %v, want %v", name, got, want)
	}
	same("All as a function", slices.Collect(func(yield func([]int) bool) {
		i, _ := collectAll(v.All())
		for _, idx := range i {
			yield(idx)
		}
	}), func() []T { _, x := collectAll(v.All()); return x }())
	if len(all) > 1 {
		n := 0
		for range v.All() {
			if n++; n == len(all)/2 {
				break
			}
		}
		if n != len(all)/2 {
			t.Fatalf("%s: All went on after break: %d", name, n)
		}
	}
	// Apply with a func literal and with fn a parameter: each call sees the
	// index and value All would yield, and its result lands there.
	for _, via := range []string{"literal", "parameter"} {
		gotIdx, got = nil, nil
		k := 0
		f := func(idx []int, x T) T {
			gotIdx, got = append(gotIdx, slices.Clone(idx)), append(got, x)
			scribble(idx)
			k++
			return fromInt[T](k)
		}
		if via == "literal" {
			err = v.Apply(func(idx []int, x T) T { return f(idx, x) })
		} else {
			err = applyVia(v, f)
		}
		if err != nil {
			t.Fatalf("%s: Apply (%s): %v", name, via, err)
		}
		same("Apply ("+via+")", gotIdx, got)
		for j, idx := range all {
			b, _ := a.ItemBytes(idx...)
			if g := decodeItem(dt, b).(T); g != fromInt[T](j+1) {
				t.Fatalf("%s: Apply (%s) left %v at %v, want %v", name, via, g, idx, fromInt[T](j+1))
			}
		}
		want = want[:0]
		for j := range all {
			want = append(want, fromInt[T](j+1))
		}
	}
}

// TestViewFastPaths: the inlined paths of At, All and Apply (1-D, 0-d,
// N-d, empty, bool) visit the same elements in the same order, with the
// same index slices, as the general walk did, and see what ItemBytes sees.
func TestViewFastPaths(t *testing.T) {
	p := newTestPool(t)
	for name, a := range fastPathLayouts(t, distinctBase(t, p, Float64)) {
		checkFastPaths[float64](t, name, a)
	}
	for name, a := range fastPathLayouts(t, distinctBase(t, p, Int8)) {
		checkFastPaths[int8](t, name, a)
	}
	for name, a := range fastPathLayouts(t, distinctBase(t, p, Complex128)) {
		checkFastPaths[complex128](t, name, a)
	}
	// Bool bytes other than 0 and 1 read as true on every path.
	base := distinctBase(t, p, Bool)
	for i, idx := range indices(base.Shape()) {
		b, _ := base.ItemBytes(idx...)
		b[0] = byte(i * 37 % 256) // 0, 37, 74, ... 255 at i 23
	}
	for name, a := range fastPathLayouts(t, base) {
		v, _ := NewView[bool](a)
		if a.Size() > 0 {
			for idx := range v.All() {
				b, _ := a.ItemBytes(idx...)
				if v.At(idx...) != (b[0] != 0) {
					t.Fatalf("%s: At%v = %v for byte %d", name, idx, v.At(idx...), b[0])
				}
			}
		}
		checkFastPaths[bool](t, name, a)
	}
}

// TestViewFastPathErrors: on the inlined paths, the errors and panics are
// those of the general ones, to the message.
func TestViewFastPathErrors(t *testing.T) {
	p := newTestPool(t)
	base := arange(t, p, Float64, 4, 6)
	flat := must(t)(base.Reshape(24))
	for name, a := range map[string]*Array{
		"1-d":      must(t)(flat.Index(SliceStep(-3))),
		"1-d bool": must(t)(arange(t, p, Bool, 8).Index(SliceStep(2))),
		"2-d":      must(t)(base.Index(SliceStep(2))),
		"0-d":      must(t)(flat.Index(Int(4))),
	} {
		var at func(idx ...int)
		var get func(idx ...int) error
		if a.DType() == Bool {
			w, _ := NewView[bool](a)
			at, get = func(idx ...int) { w.At(idx...) }, func(idx ...int) error { _, err := w.Get(idx...); return err }
		} else {
			w, _ := NewView[float64](a)
			at = func(idx ...int) {
				if len(idx) == 1 {
					w.At(idx[0]) // the literal form
				}
				w.At(idx...)
			}
			get = func(idx ...int) error { _, err := w.Get(idx...); return err }
		}
		n := a.Shape()
		for _, idx := range [][]int{{}, {0}, {-1}, {1 << 40}, {0, 0}, {-1, 0}, {0, 1 << 40}} {
			want := get(idx...)
			if want == nil {
				continue
			}
			func() {
				defer func() {
					r := recover()
					if err, ok := r.(error); !ok || err.Error() != want.Error() || !errors.Is(err, ErrIndex) {
						t.Errorf("%s (shape %v): At%v panics %v, want %v", name, n, idx, r, want)
					}
				}()
				at(idx...)
			}()
		}
	}

	// Read-only, released array, released memory and the zero View.
	ro, _ := NewView[float64](must(t)(flat.AsReadOnly()))
	err := ro.Apply(func(_ []int, x float64) float64 { return x })
	if !errors.Is(err, ErrReadOnly) || err.Error() != "memview: Apply on a read-only View: "+ErrReadOnly.Error() {
		t.Errorf("Apply on a read-only 1-d view: %v", err)
	}
	if err := applyVia(ro, func(_ []int, x float64) float64 { return x }); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Apply on a read-only 1-d view, fn a parameter: %v", err)
	}
	if ro.At(5) != 5 {
		t.Errorf("At on a read-only 1-d view: %v", ro.At(5))
	}

	b, err := Empty(p, []int{6}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	keep, err := b.Index()
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewView[float64](b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	// The array is released, its memory is not: At and All read, Apply
	// refuses.
	err = w.Apply(func(_ []int, x float64) float64 { return x + 1 })
	if !errors.Is(err, ErrReleased) || err.Error() != "memview: use of a View of a released array: "+ErrReleased.Error() {
		t.Errorf("Apply on a released array: %v", err)
	}
	wantErr(t, applyVia(w, func(_ []int, x float64) float64 { return x + 1 }), ErrReleased)
	n := 0
	for range w.All() {
		n++
	}
	if w.At(5) != 0 || n != 6 {
		t.Errorf("At, All on a released array with live memory: %v, %d elements", w.At(5), n)
	}
	if err := keep.Release(); err != nil {
		t.Fatal(err)
	}
	mustPanic(t, "1-d At after the memory went back", ErrReleased, func() { w.At(0) })
	mustPanic(t, "1-d All after the memory went back", ErrReleased, func() {
		for range w.All() {
		}
	})
	wantErr(t, w.Apply(func(_ []int, x float64) float64 { return x }), ErrReleased)

	var zero View[float64]
	mustPanic(t, "At(0) on the zero View", ErrInvalid, func() { zero.At(0) })
	err = zero.Apply(func(_ []int, x float64) float64 { return x })
	if !errors.Is(err, ErrInvalid) || err.Error() != "memview: use of the zero View (make one with NewView): "+ErrInvalid.Error() {
		t.Errorf("Apply on the zero View: %v", err)
	}
	wantErr(t, applyVia(zero, func(_ []int, x float64) float64 { return x }), ErrInvalid)
}
