package memview

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestProxyPool(t *testing.T) {
	inner := NewCheckedPool(&HostAllocator{})
	defer inner.AssertEmpty(t)
	proxy := NewProxyPool(inner)
	defer proxy.AssertEmpty(t)
	a, err := NewBuffer(inner, 64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResizableBuffer(proxy, 100)
	if err != nil {
		t.Fatal(err)
	}
	wantStats(t, "proxy", proxy, stats{128, 128, 128, 1, 1})
	wantStats(t, "inner", inner, stats{192, 192, 192, 2, 2})
	if err := b.Resize(1000, true); err != nil { // 128 -> 1024 in both
		t.Fatal(err)
	}
	wantStats(t, "proxy after resize", proxy, stats{1024, 1024, 1024, 2, 1})
	wantStats(t, "inner after resize", inner, stats{1088, 1088, 1088, 3, 2})
	if proxy.BackendName() != "host" || proxy.Device() != (Device{}) {
		t.Fatalf("proxy backend %q device %v", proxy.BackendName(), proxy.Device())
	}
	for _, x := range []*Buffer{a, b} {
		if err := x.Release(); err != nil {
			t.Fatal(err)
		}
	}
	wantStats(t, "proxy at the end", proxy, stats{0, 1024, 1024, 2, 0})
}

func TestLoggingPool(t *testing.T) {
	var out bytes.Buffer
	inner := NewCheckedPool(&HostAllocator{})
	defer inner.AssertEmpty(t)
	p := NewLoggingPool(inner, &out)
	b, err := NewResizableBuffer(p, 100)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("%#x", uintptr(b.Pointer()))
	if err := b.Resize(200, true); err != nil {
		t.Fatal(err)
	}
	addr2 := fmt.Sprintf("%#x", uintptr(b.Pointer()))
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Allocate(-1); err == nil {
		t.Fatal("Allocate(-1) succeeded")
	}
	want := []string{
		"memview: host: allocate 128 bytes at " + addr,
		"memview: host: reallocate 128 bytes at " + addr + " to 256 bytes at " + addr2,
		"memview: host: free 256 bytes at " + addr2,
		"memview: host: allocate -1 bytes failed: memview: host allocator: negative size -1: invalid argument",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantStats(t, "logging pool", p, stats{0, 256, 256, 2, 0})
}

// recorder is a TestingT that keeps what AssertEmpty reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// line returns the line number of its caller.
func line() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}

func TestCheckedPoolNamesTheLeak(t *testing.T) {
	p := NewCheckedPool(&HostAllocator{})
	p.Allocator().(*CheckedAllocator).Origin = func() string { return "  origin: the test" }
	kept, err := NewBuffer(p, 10)
	at := line() - 1
	if err != nil {
		t.Fatal(err)
	}
	freed, err := NewBuffer(p, 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := freed.Release(); err != nil {
		t.Fatal(err)
	}
	var r recorder
	p.AssertEmpty(&r)
	if len(r.errs) != 2 {
		t.Fatalf("AssertEmpty reported %q, want the count and one leak", r.errs)
	}
	if r.errs[0] != "memview: pool host has 1 live allocations of 64 bytes" {
		t.Errorf("summary %q", r.errs[0])
	}
	// The report starts at the allocating call, not inside the pool.
	re := regexp.MustCompile(`^memview: leak of 64 bytes at 0x[0-9a-f]+ allocated by github.com/memview/memview/memview.NewBuffer \(.*buffer.go:\d+\) <- github.com/memview/memview/memview.TestCheckedPoolNamesTheLeak \(.*pool_wrappers_test.go:(\d+)\)`)
	m := re.FindStringSubmatch(r.errs[1])
	if m == nil || m[1] != fmt.Sprint(at) {
		t.Fatalf("leak report %q does not name pool_wrappers_test.go:%d", r.errs[1], at)
	}
	if !strings.HasSuffix(r.errs[1], "\n  origin: the test") {
		t.Errorf("leak report %q lacks the origin", r.errs[1])
	}
	if err := kept.Release(); err != nil {
		t.Fatal(err)
	}
	r = recorder{}
	p.AssertEmpty(&r)
	if len(r.errs) != 0 {
		t.Fatalf("AssertEmpty after the free: %q", r.errs)
	}
}

func TestCheckedReallocate(t *testing.T) {
	c := NewCheckedAllocator(&HostAllocator{})
	b, err := c.Allocate(64)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := c.Reallocate(b, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if c.LiveBytes() != 4096 || c.NumLive() != 1 {
		t.Fatalf("after reallocate: %d bytes in %d", c.LiveBytes(), c.NumLive())
	}
	if _, err := c.Reallocate(b, 10); err == nil {
		t.Fatal("reallocate of freed memory succeeded")
	}
	if err := c.Free(nb); err != nil {
		t.Fatal(err)
	}
	if c.LiveBytes() != 0 || len(c.Leaks()) != 0 {
		t.Fatal("not empty after Free")
	}
}

func TestSetDefaultPool(t *testing.T) {
	orig := DefaultPool()
	p := NewCheckedPool(orig)
	if old := SetDefaultPool(p); old != orig {
		t.Fatal("SetDefaultPool did not return the previous pool")
	}
	b, err := NewBuffer(nil, 1)
	restored := SetDefaultPool(nil)
	if err != nil {
		t.Fatal(err)
	}
	if restored != p || DefaultPool() != orig || p.NumLive() != 1 {
		t.Fatalf("default pool not switched and restored (live in p: %d)", p.NumLive())
	}
	if err := b.Release(); err != nil { // back to p, whatever the default is now
		t.Fatal(err)
	}
	p.AssertEmpty(t)
}

func TestReallocateDeviceMemoryRefused(t *testing.T) {
	p := NewPool(&deviceAlloc{dev: Device{Kind: CUDA}})
	b, err := p.Allocate(64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Reallocate(b, 128); err == nil {
		t.Fatal("reallocate of device memory by the CPU succeeded")
	} else {
		wantErr(t, err, ErrInvalid)
	}
	if _, err := NewResizableBuffer(p, 10); err == nil {
		t.Fatal("resizable buffer of device memory")
	}
	if err := p.Free(b); err != nil {
		t.Fatal(err)
	}
	p.AssertEmpty(t)
}

// TestPoolRecount: a cache in front of a pool settles the two counters of
// what was handed out, and nothing else.
func TestPoolRecount(t *testing.T) {
	p := NewPool(&HostAllocator{})
	b1, err := p.Allocate(64)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := p.Allocate(64)
	if err != nil {
		t.Fatal(err)
	}
	// a cache handed its users three 64-byte blocks out of these two
	p.Recount(3-2, 3*64-128)
	if got := [...]int64{p.NumAllocations(), p.TotalBytesAllocated(), p.BytesAllocated(), p.NumLive(), p.MaxMemory()}; got != [...]int64{3, 192, 128, 2, 128} {
		t.Fatalf("after Recount: allocations, total, bytes, live, peak = %v", got)
	}
	if err := p.Free(b1); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(b2); err != nil {
		t.Fatal(err)
	}
	if p.BytesAllocated() != 0 || p.NumLive() != 0 || p.NumAllocations() != 3 {
		t.Fatalf("after Free: bytes %d, live %d, allocations %d", p.BytesAllocated(), p.NumLive(), p.NumAllocations())
	}
}
