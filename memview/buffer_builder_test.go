package memview

import (
	"bytes"
	"slices"
	"testing"
)

func TestBufferBuilder(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	b := NewBufferBuilder(p)
	if b.Len() != 0 || b.Cap() != 0 || len(b.Bytes()) != 0 {
		t.Fatal("new builder is not empty")
	}
	if err := b.Reserve(11); err != nil {
		t.Fatal(err)
	}
	if b.Cap() != 64 || p.NumLive() != 1 {
		t.Fatalf("reserve 11: capacity %d", b.Cap())
	}
	for _, s := range []string{"hello ", "world"} {
		if err := b.Append([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// Growth by a factor of two: 64 -> 128 -> 256 -> 512 as bytes come in.
	var caps []int
	for i := 0; i < 400; i++ {
		if err := b.Append([]byte{byte('a' + i%26)}); err != nil {
			t.Fatal(err)
		}
		if len(caps) == 0 || caps[len(caps)-1] != b.Cap() {
			caps = append(caps, b.Cap())
		}
	}
	if want := []int{64, 128, 256, 512}; !slices.Equal(caps, want) {
		t.Fatalf("capacities %v, want %v", caps, want)
	}
	if err := b.Reserve(2000); err != nil { // more than 2x: what is needed
		t.Fatal(err)
	}
	if b.Cap() != 2432 { // 411 + 2000 rounded up to 64
		t.Fatalf("capacity %d after a large reserve", b.Cap())
	}
	n := b.Len()
	if !bytes.HasPrefix(b.Bytes(), []byte("hello worldabc")) || n != 411 {
		t.Fatalf("contents %q (%d)", b.Bytes()[:20], n)
	}
	copy(b.Spare(), "XYZ garbage beyond the length")
	if err := b.Advance(3); err != nil {
		t.Fatal(err)
	}
	if err := b.Advance(-1); err == nil {
		t.Fatal("Advance(-1) succeeded")
	}
	if err := b.Advance(b.Cap()); err == nil {
		t.Fatal("Advance past the capacity succeeded")
	}
	buf, err := b.Finish(true)
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 414 || buf.Capacity() != 448 || buf.Resizable() || !buf.Mutable() {
		t.Fatalf("finished: size %d capacity %d resizable %t", buf.Len(), buf.Capacity(), buf.Resizable())
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("XYZ")) || !allZero(buf.data[414:]) {
		t.Fatalf("padding not zeroed: %q", buf.data[410:])
	}
	if p.BytesAllocated() != 448 {
		t.Fatalf("pool has %d bytes after shrink to fit", p.BytesAllocated())
	}
	// Reusable after Finish.
	if b.Len() != 0 || b.Cap() != 0 {
		t.Fatal("builder not empty after Finish")
	}
	if err := b.AppendRepeated('z', 70); err != nil {
		t.Fatal(err)
	}
	buf2, err := b.Finish(false) // keeps the capacity, padding zeroed
	if err != nil {
		t.Fatal(err)
	}
	if buf2.Len() != 70 || buf2.Capacity() != 128 || string(buf2.Bytes()) != string(bytes.Repeat([]byte("z"), 70)) || !allZero(buf2.data[70:]) {
		t.Fatalf("second finish: %d %d", buf2.Len(), buf2.Capacity())
	}
	empty, err := b.Finish(true)
	if err != nil || empty.Len() != 0 {
		t.Fatalf("finish of an empty builder: %v", err)
	}
	if err := b.Append([]byte("dropped")); err != nil {
		t.Fatal(err)
	}
	if err := b.Reset(); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Buffer{buf, buf2, empty} {
		if err := x.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBufferBuilderResize(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	b := NewBufferBuilder(p)
	defer b.Reset()
	if err := b.Resize(0, false); err != nil || b.Cap() != 0 {
		t.Fatalf("Resize(0): %v %d", err, b.Cap())
	}
	if err := b.Resize(1000, false); err != nil || b.Cap() != 1024 {
		t.Fatalf("Resize(1000): %v %d", err, b.Cap())
	}
	if err := b.Append(bytes.Repeat([]byte{1}, 300)); err != nil {
		t.Fatal(err)
	}
	if err := b.Resize(100, false); err != nil || b.Cap() != 1024 || b.Len() != 300 {
		t.Fatalf("shrink without shrinkToFit: %v cap %d len %d", err, b.Cap(), b.Len())
	}
	if err := b.Resize(100, true); err != nil || b.Cap() != 128 || b.Len() != 128 { // as Arrow: the rounded capacity
		t.Fatalf("shrink to fit: %v cap %d len %d", err, b.Cap(), b.Len())
	}
	if err := b.Resize(-1, true); err == nil {
		t.Fatal("Resize(-1) succeeded")
	}
	if err := b.Reserve(-1); err == nil {
		t.Fatal("Reserve(-1) succeeded")
	}
}

func TestTypedBufferBuilder(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	defer p.AssertEmpty(t)
	b := NewTypedBufferBuilder[int32](p)
	if err := b.Reserve(2); err != nil {
		t.Fatal(err)
	}
	if b.Cap() != 16 {
		t.Fatalf("capacity %d items, want 16 (64 bytes)", b.Cap())
	}
	for i := int32(0); i < 100; i++ {
		if err := b.Append(i * i); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AppendSlice([]int32{-1, -2}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 102 || b.Values()[99] != 99*99 || b.Values()[101] != -2 {
		t.Fatalf("len %d values %v", b.Len(), b.Values()[98:])
	}
	a, err := b.FinishArray(true)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if a.DType() != Int32 || !slices.Equal(a.Shape(), []int{102}) || a.Buffer().Capacity() != 448 {
		t.Fatalf("array %v capacity %d", a, a.Buffer().Capacity())
	}
	v, err := NewView[int32](a)
	if err != nil {
		t.Fatal(err)
	}
	if v.At(10) != 100 || v.At(100) != -1 {
		t.Fatalf("a[10] %d a[100] %d", v.At(10), v.At(100))
	}
	if b.Len() != 0 {
		t.Fatal("typed builder not empty after FinishArray")
	}
	c := NewTypedBufferBuilder[complex128](p)
	if err := c.Append(1 + 2i); err != nil {
		t.Fatal(err)
	}
	buf, err := c.Finish(false)
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 16 || buf.Capacity() != 64 {
		t.Fatalf("complex128 buffer: %d %d", buf.Len(), buf.Capacity())
	}
	if err := buf.Release(); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(-1); err == nil {
		t.Fatal("Reserve(-1) succeeded")
	}
}
