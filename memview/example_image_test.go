package memview_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memview/memview/memview"
)

// RGBImage is a user's type that owns its pixels and lends them out: a
// height x width x 3 array of uint8 in memory from a memview pool (off the
// Go heap or pinned, so C and Python may hold its address), exportable
// without a copy by implementing memview.Exporter.
type RGBImage struct {
	Width, Height int
	pix           *memview.Array // shape (Height, Width, 3), C order

	mu     sync.Mutex
	views  int // views handed out and not yet given back
	closed bool
}

var _ memview.Exporter = (*RGBImage)(nil)

// NewRGBImage returns a black image from pool.
func NewRGBImage(pool *memview.Pool, width, height int) (*RGBImage, error) {
	pix, err := memview.Empty(pool, []int{height, width, 3}, memview.Uint8, 'C')
	if err != nil {
		return nil, err
	}
	return &RGBImage{Width: width, Height: height, pix: pix}, nil
}

// Available reports whether the image can lend its pixels: not once closed.
func (im *RGBImage) Available() bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return !im.closed
}

// View lends a new view of the pixels if their layout satisfies req.
func (im *RGBImage) View(req memview.Request) (*memview.Array, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return nil, fmt.Errorf("rgb image: closed: %w", memview.ErrReleased)
	}
	if err := req.Check(im.pix); err != nil {
		return nil, err // refuse what cannot be served exactly; never copy
	}
	v, err := im.pix.Index() // a new Array over the same pixels
	if err != nil {
		return nil, err
	}
	im.views++
	return v, nil
}

// ReleaseView takes a lent view back.
func (im *RGBImage) ReleaseView(a *memview.Array) error {
	im.mu.Lock()
	im.views--
	im.mu.Unlock()
	return a.Release()
}

// Views returns the number of views lent out.
func (im *RGBImage) Views() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.views
}

// Pixel reads the colour at (x, y) from the image's own array.
func (im *RGBImage) Pixel(x, y int) [3]uint8 {
	var c [3]uint8
	for k := range c {
		v, _ := im.pix.Float64(y, x, k)
		c[k] = uint8(v)
	}
	return c
}

// Close frees the pixels; it refuses while views are lent out.
func (im *RGBImage) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.views > 0 {
		return fmt.Errorf("rgb image: %d views lent out: %w", im.views, memview.ErrExported)
	}
	im.closed = true
	return im.pix.Release()
}

// ExampleExport lends an RGBImage's pixels to two consumers at once: each
// writes through its own View[uint8], and the other consumer and the image
// itself see the change, because all three share one block of memory.
func ExampleExport() {
	pool := memview.NewPool(&memview.HostAllocator{})
	img, _ := NewRGBImage(pool, 4, 2)

	// Consumer 1 asks for a writable, strided view with its format (what
	// NumPy asks for with PyBUF_RECORDS).
	a, _ := memview.Export(img, memview.ReqRecords)
	fmt.Println("exported: shape", a.Shape(), "strides", a.Strides(), a.DType())

	// A Fortran-ordered view of a C-ordered image is refused, not copied.
	_, err := memview.Export(img, memview.ReqFContiguous)
	fmt.Println("F-contiguous refused:", errors.Is(err, memview.ErrInvalid))

	// Consumer 2 asks for C-contiguous memory.
	b, _ := memview.Export(img, memview.ReqCContiguous|memview.ReqWritable)

	v1, _ := memview.NewView[uint8](a)
	v2, _ := memview.NewView[uint8](b)
	v1.Set(255, 0, 1, 0) // pixel (x=1, y=0) red, through consumer 1
	v2.Set(128, 1, 3, 2) // pixel (x=3, y=1) blue, through consumer 2
	fmt.Println("consumer 2 reads red:", v2.At(0, 1, 0))
	fmt.Println("consumer 1 reads blue:", v1.At(1, 3, 2))
	fmt.Println("the image reads:", img.Pixel(1, 0), img.Pixel(3, 1))

	// Consumer 1 brightens every channel of row 1 through a sub-view.
	row, _ := a.Index(memview.Int(1))
	r, _ := memview.NewView[uint8](row)
	_ = r.Apply(func(_ []int, x uint8) uint8 { return x + 10 })
	fmt.Println("after brightening row 1:", img.Pixel(0, 1), img.Pixel(3, 1))

	fmt.Println("views lent out:", img.Views())
	fmt.Println("close while lent:", errors.Is(img.Close(), memview.ErrExported))
	_ = row.Release() // row shares a's export: it goes back when both are released
	_ = a.Release()
	_ = b.Release()
	fmt.Println("views lent out:", img.Views())
	fmt.Println("close:", img.Close())
	fmt.Println("live bytes:", pool.BytesAllocated())
	// Output:
	// exported: shape [2 4 3] strides [12 3 1] uint8
	// F-contiguous refused: true
	// consumer 2 reads red: 255
	// consumer 1 reads blue: 128
	// the image reads: [255 0 0] [0 0 128]
	// after brightening row 1: [10 10 10] [10 10 138]
	// views lent out: 2
	// close while lent: true
	// views lent out: 0
	// close: <nil>
	// live bytes: 0
}
