// Package gopkg is Go code the tests build together with memview (build.py
// test): a slice of every element type memview has, in both directions,
// arrays and exporters of every kind, the wrong ways to keep memory, errors
// of every kind and panics — each as a bound Go package would have them.
package gopkg

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/memview/memview/memview"
)

func ramp[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// Bools returns a Go slice of n bools, the odd ones true.
func Bools(n int) []bool { return ramp(n, func(i int) bool { return i%2 == 1 }) }

// Int8s returns a Go slice of n elements 0, 1, 2, ...
func Int8s(n int) []int8 { return ramp(n, func(i int) int8 { return int8(i) }) }

// Int16s returns a Go slice of n elements 0, 1, 2, ...
func Int16s(n int) []int16 { return ramp(n, func(i int) int16 { return int16(i) }) }

// Int32s returns a Go slice of n elements 0, 1, 2, ...
func Int32s(n int) []int32 { return ramp(n, func(i int) int32 { return int32(i) }) }

// Int64s returns a Go slice of n elements 0, 1, 2, ...
func Int64s(n int) []int64 { return ramp(n, func(i int) int64 { return int64(i) }) }

// Ints returns a Go slice of n elements 0, 1, 2, ...
func Ints(n int) []int { return ramp(n, func(i int) int { return i }) }

// Uint8s returns a Go slice of n elements 0, 1, 2, ...
func Uint8s(n int) []uint8 { return ramp(n, func(i int) uint8 { return uint8(i) }) }

// Uint16s returns a Go slice of n elements 0, 1, 2, ...
func Uint16s(n int) []uint16 { return ramp(n, func(i int) uint16 { return uint16(i) }) }

// Uint32s returns a Go slice of n elements 0, 1, 2, ...
func Uint32s(n int) []uint32 { return ramp(n, func(i int) uint32 { return uint32(i) }) }

// Uint64s returns a Go slice of n elements 0, 1, 2, ...
func Uint64s(n int) []uint64 { return ramp(n, func(i int) uint64 { return uint64(i) }) }

// Uints returns a Go slice of n elements 0, 1, 2, ...
func Uints(n int) []uint { return ramp(n, func(i int) uint { return uint(i) }) }

// Float32s returns a Go slice of n elements 0, 1, 2, ...
func Float32s(n int) []float32 { return ramp(n, func(i int) float32 { return float32(i) }) }

// Float64s returns a Go slice of n elements 0, 1, 2, ...
func Float64s(n int) []float64 { return ramp(n, func(i int) float64 { return float64(i) }) }

// Complex64s returns a Go slice of n elements i+1i.
func Complex64s(n int) []complex64 {
	return ramp(n, func(i int) complex64 { return complex(float32(i), 1) })
}

// Complex128s returns a Go slice of n elements i+1i.
func Complex128s(n int) []complex128 {
	return ramp(n, func(i int) complex128 { return complex(float64(i), 1) })
}

// Bytes returns a Go slice of n elements 0, 1, 2, ...
func Bytes(n int) []byte { return ramp(n, func(i int) byte { return byte(i) }) }

// Runes returns a Go slice of n elements 0, 1, 2, ...
func Runes(n int) []rune { return ramp(n, func(i int) rune { return rune(i) }) }

// Samples is a named slice type.
type Samples []float64

// NamedSamples returns a Samples of 0, 1, ...
func NamedSamples(n int) Samples { return Samples(ramp(n, func(i int) float64 { return float64(i) })) }

// IncBools adds 1 to every element of x (negates a bool), in place.
func IncBools(x []bool) {
	for i := range x {
		x[i] = !x[i]
	}
}

// IncInt8s adds 1 to every element of x (negates a bool), in place.
func IncInt8s(x []int8) { inc(x) }

// IncInt16s adds 1 to every element of x (negates a bool), in place.
func IncInt16s(x []int16) { inc(x) }

// IncInt32s adds 1 to every element of x (negates a bool), in place.
func IncInt32s(x []int32) { inc(x) }

// IncInt64s adds 1 to every element of x (negates a bool), in place.
func IncInt64s(x []int64) { inc(x) }

// IncInts adds 1 to every element of x (negates a bool), in place.
func IncInts(x []int) { inc(x) }

// IncUint8s adds 1 to every element of x (negates a bool), in place.
func IncUint8s(x []uint8) { inc(x) }

// IncUint16s adds 1 to every element of x (negates a bool), in place.
func IncUint16s(x []uint16) { inc(x) }

// IncUint32s adds 1 to every element of x (negates a bool), in place.
func IncUint32s(x []uint32) { inc(x) }

// IncUint64s adds 1 to every element of x (negates a bool), in place.
func IncUint64s(x []uint64) { inc(x) }

// IncUints adds 1 to every element of x (negates a bool), in place.
func IncUints(x []uint) { inc(x) }

// IncFloat32s adds 1 to every element of x (negates a bool), in place.
func IncFloat32s(x []float32) { inc(x) }

// IncFloat64s adds 1 to every element of x (negates a bool), in place.
func IncFloat64s(x []float64) { inc(x) }

// IncComplex64s adds 1 to every element of x (negates a bool), in place.
func IncComplex64s(x []complex64) { inc(x) }

// IncComplex128s adds 1 to every element of x (negates a bool), in place.
func IncComplex128s(x []complex128) { inc(x) }

// IncBytes adds 1 to every element of x (negates a bool), in place.
func IncBytes(x []byte) { inc(x) }

// IncRunes adds 1 to every element of x (negates a bool), in place.
func IncRunes(x []rune) { inc(x) }

func inc[T int8 | int16 | int32 | int64 | int | uint8 | uint16 | uint32 | uint64 | uint |
	float32 | float64 | complex64 | complex128](x []T) {
	for i := range x {
		x[i]++
	}
}

// Len returns len(x) (an empty slice from Python is fine).
func Len(x []float64) int { return len(x) }

// Dot returns the dot product of x and y: two lent slices in one call.
func Dot(x, y []float64) (float64, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("gopkg.Dot: lengths %d and %d differ: %w", len(x), len(y), memview.ErrInvalid)
	}
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s, nil
}

// Address returns the address of element 0 of a, as Go sees it.
func Address(a *memview.Array) uintptr { return uintptr(a.Pointer()) }

// SliceAddress returns the address of element 0 of x, as Go sees it.
func SliceAddress(x []float64) uintptr {
	if len(x) == 0 {
		return 0
	}
	return uintptr(unsafeAddr(&x[0]))
}

// Describe returns a's shape, strides and flags as Go sees them.
func Describe(a *memview.Array) string {
	return fmt.Sprintf("%s %v %v readonly=%v", a.DType(), a.Shape(), a.Strides(), a.ReadOnly())
}

// Fill sets every element of a to v (ValueError for a read-only array).
func Fill(a *memview.Array, v float64) error {
	view, err := memview.NewView[float64](a)
	if err != nil {
		return err
	}
	return view.Apply(func([]int, float64) float64 { return v })
}

// Acc accumulates sums: a bound type whose methods take memory.
type Acc struct {
	total float64
}

// NewAcc returns an accumulator at 0.
func NewAcc() *Acc { return &Acc{} }

// Add adds the elements of x and returns the running total.
func (a *Acc) Add(x []float64) float64 {
	for _, v := range x {
		a.total += v
	}
	return a.total
}

// AddArray adds the elements of any float64 array.
func (a *Acc) AddArray(x *memview.Array) error {
	v, err := memview.NewView[float64](x)
	if err != nil {
		return err
	}
	for _, e := range v.All() {
		a.total += e
	}
	return nil
}

// Total returns the running total.
func (a *Acc) Total() float64 { return a.total }

// Go-owned memview arrays: one Go keeps (and releases with DropOwned), handed to Python.
var owned struct {
	sync.Mutex
	a *memview.Array
}

// Owned returns a new Go-owned float64 array 0, 1, ... of n elements that Go
// keeps until DropOwned.
func Owned(n int) (*memview.Array, error) {
	a, err := memview.Empty(nil, []int{n}, memview.Float64, 'C')
	if err != nil {
		return nil, err
	}
	for i := range n {
		if err := a.SetFloat64(float64(i), i); err != nil {
			return nil, err
		}
	}
	owned.Lock()
	defer owned.Unlock()
	if owned.a != nil {
		_ = owned.a.Release()
	}
	owned.a = a
	return a, nil
}

// DropOwned releases Go's own reference to the array Owned made.
func DropOwned() error {
	owned.Lock()
	defer owned.Unlock()
	if owned.a == nil {
		return nil
	}
	err := owned.a.Release()
	owned.a = nil
	return err
}

// ReadOnly is an exporter that lends its bytes read-only.
type ReadOnly struct {
	data  []byte
	mu    sync.Mutex
	views int
}

// Views returns the number of views lent and not yet given back.
func (r *ReadOnly) Views() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.views
}

// NewReadOnly returns a read-only exporter of n bytes 0, 1, ...
func NewReadOnly(n int) *ReadOnly { return &ReadOnly{data: Bytes(n)} }

// Available reports that it can always lend.
func (r *ReadOnly) Available() bool { return true }

// View lends a read-only view; a writable request is refused.
func (r *ReadOnly) View(req memview.Request) (*memview.Array, error) {
	a, err := memview.FromSlice(r.data)
	if err != nil {
		return nil, err
	}
	ro, err := a.AsReadOnly()
	_ = a.Release()
	if err != nil {
		return nil, err
	}
	if err := req.Check(ro); err != nil {
		_ = ro.Release()
		return nil, err
	}
	r.mu.Lock()
	r.views++
	r.mu.Unlock()
	return ro, nil
}

// ReleaseView takes a view back.
func (r *ReadOnly) ReleaseView(a *memview.Array) error {
	r.mu.Lock()
	r.views--
	r.mu.Unlock()
	return a.Release()
}

// The wrong ways to keep memory after a call, and what happens.
var kept struct {
	sync.Mutex
	lent *memview.Array
	own  *memview.Array
}

// KeepLent keeps the lent array itself, not a view of its own: it is
// released when the call returns.
func KeepLent(a *memview.Array) {
	kept.Lock()
	kept.lent = a
	kept.Unlock()
}

// UseLent reads element 0 of the array KeepLent kept (an error once released).
func UseLent() (float64, error) {
	kept.Lock()
	defer kept.Unlock()
	return kept.lent.Float64(0)
}

// Keep keeps a view of its own of a, in a global.
func Keep(a *memview.Array) error {
	own, err := a.Index()
	if err != nil {
		return err
	}
	kept.Lock()
	defer kept.Unlock()
	if kept.own != nil {
		_ = kept.own.Release()
	}
	kept.own = own
	return nil
}

// KeptSum sums the kept array's elements (float64, any layout).
func KeptSum() (float64, error) {
	kept.Lock()
	defer kept.Unlock()
	if kept.own == nil {
		return 0, fmt.Errorf("gopkg: nothing kept: %w", memview.ErrInvalid)
	}
	v, err := memview.NewView[float64](kept.own)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, x := range v.All() {
		s += x
	}
	return s, nil
}

// KeptFill writes v into every element of the kept array.
func KeptFill(v float64) error {
	kept.Lock()
	defer kept.Unlock()
	if kept.own == nil {
		return fmt.Errorf("gopkg: nothing kept: %w", memview.ErrInvalid)
	}
	return Fill(kept.own, v)
}

// Unkeep releases the kept array.
func Unkeep() error {
	kept.Lock()
	defer kept.Unlock()
	if kept.own == nil {
		return nil
	}
	err := kept.own.Release()
	kept.own = nil
	return err
}

// Sleep sleeps for ms milliseconds with x lent (other Python threads run:
// gopy released the GIL).
func Sleep(x []float64, ms int) int {
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return len(x)
}

// GC runs Go's garbage collector to completion, twice.
func GC() {
	runtime.GC()
	runtime.GC()
}

// NumGC returns how many collections Go has run.
func NumGC() int {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return int(s.NumGC)
}

// Churn allocates and drops n MiB of Go heap, so collections run.
func Churn(n int) int {
	total := 0
	for range n {
		b := make([]byte, 1<<20)
		b[0] = 1
		total += int(b[0])
	}
	return total
}

// Fail returns an error wrapping the memview sentinel named (or a plain one).
func Fail(kind string) error {
	sentinels := map[string]error{"type": memview.ErrType, "index": memview.ErrIndex, "invalid": memview.ErrInvalid,
		"readonly": memview.ErrReadOnly, "exported": memview.ErrExported, "nomemory": memview.ErrNoMemory}
	if s, ok := sentinels[kind]; ok {
		return fmt.Errorf("gopkg.Fail(%q): %w", kind, s)
	}
	return errors.New("gopkg.Fail: a plain Go error")
}

// FailValue returns a value and an error.
func FailValue(fail bool) (float64, error) {
	if fail {
		return 0, fmt.Errorf("gopkg.FailValue: %w", memview.ErrIndex)
	}
	return 1.5, nil
}

// Panic panics with msg.
func Panic(msg string) { panic(msg) }

// PanicValue panics in a function that returns a value and an error.
func PanicValue(msg string) (int, error) { panic(msg) }

// PanicIndex indexes a View out of range: a panic with an error wrapping
// memview.ErrIndex.
func PanicIndex(a *memview.Array) float64 {
	v, err := memview.NewView[float64](a)
	if err != nil {
		return -1
	}
	return v.At(a.Size())
}

// Count is a bound type for the handle checks.
type Count struct{ n int }

// NewCount returns a counter.
func NewCount() *Count { return &Count{} }

// Next increments and returns the count.
func (c *Count) Next() (int, error) {
	c.n++
	return c.n, nil
}
