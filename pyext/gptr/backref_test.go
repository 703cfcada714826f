package gptr

import (
	"debug/elf"
	"os"
	"testing"
	"unsafe"

	"github.com/memview/memview/internal/rtlayout"
)

// anchor is a variable of this test binary whose address ties its symbol
// table to where the binary was loaded.
var anchor [8]uint64

// skip skips, unless the build asked for the check (MEMVIEW_GPTR_SYMBOLS=1, set
// by build.py, which keeps DWARF and symbols in the test binary): there it fails.
func skip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("MEMVIEW_GPTR_SYMBOLS") == "1" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format+" (go test -ldflags='-s=0 -w=0' keeps it)", args...)
}

// ownOffsets reads the runtime's offsets from this test binary's DWARF, as the
// extension's build does from its own tool's.
func ownOffsets(t *testing.T) rtlayout.Offsets {
	t.Helper()
	d, err := rtlayout.OwnDWARF()
	if err != nil {
		skip(t, "the test binary carries no DWARF to read offsets from: %v", err)
	}
	o, err := rtlayout.Read(d)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFindBackRefFindsTheHeap looks for the runtime's heap the way pyext/fork.go
// does, through the offsets its build reads from the toolchain's DWARF, in this
// test binary's own writable data, and checks the result against the address
// the binary's symbol table gives runtime.mheap_.
func TestFindBackRefFindsTheHeap(t *testing.T) {
	o := ownOffsets(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		skip(t, "the test binary carries no symbol table: %v", err)
	}
	var heapSym, anchorSym uint64
	for _, s := range syms {
		switch s.Name {
		case "runtime.mheap_":
			heapSym = s.Value
		case "github.com/memview/memview/pyext/gptr.anchor":
			anchorSym = s.Value
		}
	}
	if heapSym == 0 || anchorSym == 0 {
		t.Fatalf("symbols not found: runtime.mheap_ %#x, anchor %#x", heapSym, anchorSym)
	}
	var seg *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 && p.Vaddr <= anchorSym && anchorSym < p.Vaddr+p.Memsz {
			seg = p
		}
	}
	if seg == nil {
		t.Fatal("no writable segment holds the anchor")
	}
	a := unsafe.Pointer(&anchor)
	// The segment's start, aligned down to a word, as loaded.
	start := int64(seg.Vaddr&^7) - int64(anchorSym)
	base := unsafe.Add(a, start)
	size := uintptr(seg.Vaddr+seg.Memsz) - uintptr(seg.Vaddr&^7)
	got := FindBackRef(base, size, uintptr(o.HeapBack))
	want := unsafe.Add(a, int64(heapSym)-int64(anchorSym))
	if got != want {
		t.Fatalf("FindBackRef = %p, runtime.mheap_ is at %p (back %d)", got, want, o.HeapBack)
	}
	// Bad requests find nothing.
	for _, back := range []uintptr{0, 3, size, size + 8} {
		if p := FindBackRef(base, size, back); p != nil {
			t.Errorf("FindBackRef(back=%d) = %p, want nil", back, p)
		}
	}
	if p := FindBackRef(nil, size, uintptr(o.HeapBack)); p != nil {
		t.Errorf("FindBackRef(nil) = %p, want nil", p)
	}
}

// TestFindBackRefWantsExactlyOne checks that two candidates find nothing.
func TestFindBackRefWantsExactlyOne(t *testing.T) {
	buf := make([]uintptr, 64)
	base := unsafe.Pointer(&buf[0])
	buf[10] = uintptr(unsafe.Pointer(&buf[2])) // points back 8 words to itself-64
	if got := FindBackRef(base, 64*8, 64); got != unsafe.Pointer(&buf[2]) {
		t.Fatalf("one back reference: got %p, want %p", got, &buf[2])
	}
	buf[40] = uintptr(unsafe.Pointer(&buf[32]))
	if got := FindBackRef(base, 64*8, 64); got != nil {
		t.Fatalf("two back references: got %p, want nil", got)
	}
}

// TestOwnThreadNamesItsP follows the offsets pyext/fork.go uses to see whether
// the forking thread still holds its P (g.m, then m.p): from the running
// goroutine they must reach a thread that names a P (a running goroutine's
// thread always holds one).
func TestOwnThreadNamesItsP(t *testing.T) {
	o := ownOffsets(t)
	if o.GM <= 0 || o.GM%8 != 0 || o.MP <= 0 || o.MP%8 != 0 {
		t.Fatalf("implausible offsets g.m %d, m.p %d", o.GM, o.MP)
	}
	g := Current()
	if g == nil {
		t.Skip("no g pointer on this architecture")
	}
	m := *(*unsafe.Pointer)(unsafe.Add(g, o.GM))
	if m == nil {
		t.Fatal("g.m is nil for the running goroutine")
	}
	if *(*uintptr)(unsafe.Add(m, o.MP)) == 0 {
		t.Fatal("m.p is nil for the running goroutine's thread")
	}
}
