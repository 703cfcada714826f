package sigproc

import (
	"fmt"

	"github.com/memview/memview/memview"
)

// Signal is a buffer of samples kept in an ordinary Go slice. It implements
// memview.Exporter, so Python views its samples in place:
// numpy.asarray(memview.asarray(signal)).
type Signal struct {
	samples []float64
}

var _ memview.Exporter = (*Signal)(nil)

// MaxSamples is the most samples NewSignal makes a signal of. The samples are
// Go heap memory, and Go's runtime ends the process when it cannot allocate,
// so a length no signal needs is refused.
const MaxSamples = 1 << 30

// NewSignal returns a signal of n zero samples.
func NewSignal(n int) (*Signal, error) {
	if n < 0 {
		return nil, fmt.Errorf("sigproc.NewSignal: negative length %d: %w", n, memview.ErrInvalid)
	}
	if n > MaxSamples {
		return nil, fmt.Errorf("sigproc.NewSignal: %d samples are too many (at most %d): %w", n, MaxSamples,
			memview.ErrInvalid)
	}
	return &Signal{samples: make([]float64, n)}, nil
}

// Len returns the number of samples.
func (s *Signal) Len() int { return len(s.samples) }

// Total returns the sum of the samples.
func (s *Signal) Total() (float64, error) { return Sum(s.samples), nil }

// Available reports that a signal can always lend its samples.
func (s *Signal) Available() bool { return true }

// View lends the samples: memview.FromSlice pins them until the view and
// everything made from it are released, so Python may keep them as long as
// it likes.
func (s *Signal) View(req memview.Request) (*memview.Array, error) {
	a, err := memview.FromSlice(s.samples)
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
func (s *Signal) ReleaseView(a *memview.Array) error { return a.Release() }
