// Package rgbimage is an RGB image whose pixels are an ordinary Go slice,
// lent to Python without a copy: Image implements memview.Exporter, so
// numpy.asarray(memview.asarray(image)) is a (height, width, 3) uint8 array
// over the very bytes Go's methods (Invert, SetPixel) work on. Built with
// memview by `python3 build.py wheel --with examples/rgbimage`.
package rgbimage

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// Image is a width x height image of 8-bit RGB pixels, row by row.
type Image struct {
	width, height int
	pix           []uint8 // height*width*3 bytes
}

var _ memview.Exporter = (*Image)(nil)

// MaxPixels is the most pixels New makes an image of. The pixels are Go heap
// memory, and Go's runtime ends the process when it cannot allocate (no
// recover catches that), so New refuses a size no image needs, rather than
// letting a mistyped one end the Python interpreter.
const MaxPixels = 1 << 30

// New returns a black image.
func New(width, height int) (*Image, error) {
	if width < 0 || height < 0 {
		return nil, fmt.Errorf("rgbimage: negative size %dx%d: %w", width, height, memview.ErrInvalid)
	}
	if height > 0 && width > MaxPixels/height { // also where width*height*3 would overflow
		return nil, fmt.Errorf("rgbimage: an image of %dx%d pixels is too big (more than %d pixels): %w",
			width, height, MaxPixels, memview.ErrInvalid)
	}
	return &Image{width: width, height: height, pix: make([]uint8, width*height*3)}, nil
}

// Width returns the width in pixels.
func (im *Image) Width() int { return im.width }

// Height returns the height in pixels.
func (im *Image) Height() int { return im.height }

// Available reports that an image can always lend its pixels.
func (im *Image) Available() bool { return true }

// View lends the pixels as a (height, width, 3) array: memview.FromSlice
// pins them until the view and everything made from it are released, so
// they outlive the Image itself if Python keeps them.
func (im *Image) View(req memview.Request) (*memview.Array, error) {
	flat, err := memview.FromSlice(im.pix)
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	a, err := flat.Reshape(im.height, im.width, 3)
	if err != nil {
		return nil, err
	}
	if err := req.Check(a); err != nil {
		_ = a.Release()
		return nil, err
	}
	return a, nil
}

// ReleaseView takes back a view View lent.
func (im *Image) ReleaseView(a *memview.Array) error { return a.Release() }

// Invert replaces every channel value v by 255-v, in place.
func (im *Image) Invert() {
	for i, v := range im.pix {
		im.pix[i] = 255 - v
	}
}

// SetPixel sets the pixel at column x, row y.
func (im *Image) SetPixel(x, y int, r, g, b uint8) error {
	if x < 0 || x >= im.width || y < 0 || y >= im.height {
		return fmt.Errorf("rgbimage: pixel (%d, %d) outside the %dx%d image: %w", x, y, im.width, im.height, memview.ErrIndex)
	}
	i := (y*im.width + x) * 3
	im.pix[i], im.pix[i+1], im.pix[i+2] = r, g, b
	return nil
}
