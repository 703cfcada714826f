package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"sync"

	"github.com/memview/memview/memview"
)

// rgbImage is the example of a Go type that owns memory and lends it to
// Python without a copy (README, tests/test_exporter.py): a height x width x 3
// image of uint8 pixels, implementing memview.Exporter itself, with Go methods
// that work on the pixels in place through a typed View. Python reaches it as
// memview.examples.RGBImage.
type rgbImage struct {
	pix *memview.Array // (height, width, 3), C order, from the default pool

	mu     sync.Mutex
	views  int
	closed bool
}

var _ memview.Exporter = (*rgbImage)(nil)

// newRGBImage returns a black image.
func newRGBImage(width, height int) (*rgbImage, error) {
	pix, err := memview.Empty(nil, []int{height, width, 3}, memview.Uint8, 'C')
	if err != nil {
		return nil, fmt.Errorf("rgb image %dx%d: %w", width, height, err)
	}
	return &rgbImage{pix: pix}, nil
}

// Available reports whether the image still lends its pixels (not closed).
func (im *rgbImage) Available() bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return !im.closed
}

// View lends a new view of the pixels when their layout satisfies req.
func (im *rgbImage) View(req memview.Request) (*memview.Array, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return nil, fmt.Errorf("rgb image: closed: %w", memview.ErrReleased)
	}
	if err := req.Check(im.pix); err != nil {
		return nil, err
	}
	v, err := im.pix.Index()
	if err == nil {
		im.views++
	}
	return v, err
}

// ReleaseView takes back a view that View lent.
func (im *rgbImage) ReleaseView(a *memview.Array) error {
	im.mu.Lock()
	im.views--
	last := im.closed && im.views == 0
	im.mu.Unlock()
	err := a.Release()
	if last {
		// Closed while lent: the pixels go with the last view.
		if rerr := im.pix.Release(); err == nil {
			err = rerr
		}
	}
	return err
}

// Close stops lending; the pixels are freed now, or when the last lent view
// comes back.
func (im *rgbImage) Close() error {
	im.mu.Lock()
	if im.closed {
		im.mu.Unlock()
		return nil
	}
	im.closed = true
	lent := im.views > 0
	im.mu.Unlock()
	if lent {
		return nil
	}
	return im.pix.Release()
}

// Invert replaces every channel value v by 255-v, in place, from Go.
func (im *rgbImage) Invert() error {
	v, err := memview.NewView[uint8](im.pix)
	if err != nil {
		return err
	}
	return v.Apply(func(_ []int, x uint8) uint8 { return 255 - x })
}

// SetPixel sets one pixel from Go.
func (im *rgbImage) SetPixel(x, y int, r, g, b uint8) error {
	v, err := memview.NewView[uint8](im.pix)
	if err != nil {
		return err
	}
	for c, val := range []uint8{r, g, b} {
		if err := v.Put(val, y, x, c); err != nil {
			return err
		}
	}
	return nil
}

//export mvgo_example_image
func mvgo_example_image(width, height C.int64_t, out *C.uint64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	if width < 0 || height < 0 {
		return setErr(e, fmt.Errorf("rgb image: negative size %dx%d: %w", width, height, memview.ErrInvalid))
	}
	im, err := newRGBImage(int(width), int(height))
	if err != nil {
		return setErr(e, err)
	}
	*out = C.uint64_t(registerExporter(im))
	return 0
}

//export mvgo_example_image_call
func mvgo_example_image_call(id C.uint64_t, op C.int, x, y C.int64_t, r, g, b C.int, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	x0, err := exporterOf(uint64(id))
	im, ok := x0.(*rgbImage)
	if err != nil || !ok {
		return setErr(e, fmt.Errorf("rgb image %d: closed or unknown: %w", id, memview.ErrInvalid))
	}
	switch op {
	case 0:
		err = im.Invert()
	case 1:
		if r != C.int(uint8(r)) || g != C.int(uint8(g)) || b != C.int(uint8(b)) {
			err = fmt.Errorf("rgb image: pixel value (%d, %d, %d) outside [0, 255]: %w", r, g, b, memview.ErrInvalid)
			break
		}
		err = im.SetPixel(int(x), int(y), uint8(r), uint8(g), uint8(b))
	case 2:
		if _, err = dropExporter(uint64(id)); err == nil {
			err = im.Close()
		}
	default:
		err = fmt.Errorf("rgb image: unknown operation %d: %w", op, memview.ErrInvalid)
	}
	if err != nil {
		return setErr(e, err)
	}
	return 0
}
