package gopkg

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// What most Go libraries do inside an ordinary call: start goroutines, sleep,
// collect, talk over channels. A forked child must refuse each of them at once
// (tests/test_fork.py): in a child of a Go process they wait forever.

// SumParallel sums x in workers goroutines joined by a sync.WaitGroup.
func SumParallel(x []float64, workers int) float64 {
	if workers < 1 {
		workers = 1
	}
	parts := make([]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(x); i += workers {
				parts[w] += x[i]
			}
		}(w)
	}
	wg.Wait()
	t := 0.0
	for _, p := range parts {
		t += p
	}
	return t
}

// Nap sleeps ms milliseconds (a timer).
func Nap(ms int) { time.Sleep(time.Duration(ms) * time.Millisecond) }

// Collect runs a full garbage collection.
func Collect() { runtime.GC() }

// ChannelSum adds 0..n-1, sent over a channel by a goroutine.
func ChannelSum(n int) int {
	c := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			c <- i
		}
		close(c)
	}()
	t := 0
	for v := range c {
		t += v
	}
	return t
}

// Counter is a Go value with methods and a finalizer.
type Counter struct{ n int }

var finalized atomic.Int64

// NewCounter returns a Counter that the collector finalizes.
func NewCounter() *Counter {
	c := &Counter{}
	runtime.SetFinalizer(c, func(*Counter) { finalized.Add(1) })
	return c
}

// Add adds d and returns the new count.
func (c *Counter) Add(d int) int {
	c.n += d
	return c.n
}

// Finalized is the number of Counters finalized so far.
func Finalized() int { return int(finalized.Load()) }

// background is the adversarial load of the fork stress test: tickers and
// collections that keep Go's threads busy while the parent forks.
var background struct {
	sync.Mutex
	stop chan struct{}
	wg   sync.WaitGroup
}

// StartBackground starts tickers goroutines woken every periodMicros, and, if
// gcLoop, one that runs runtime.GC in a loop; StopBackground ends them.
func StartBackground(tickers, periodMicros int, gcLoop bool) {
	background.Lock()
	defer background.Unlock()
	if background.stop != nil {
		return
	}
	stop := make(chan struct{})
	background.stop = stop
	for k := 0; k < tickers; k++ {
		background.wg.Add(1)
		go func() {
			defer background.wg.Done()
			t := time.NewTicker(time.Duration(periodMicros) * time.Microsecond)
			defer t.Stop()
			var keep []byte
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					keep = make([]byte, 4096)
					keep[0]++
				}
			}
		}()
	}
	if gcLoop {
		background.wg.Add(1)
		go func() {
			defer background.wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					runtime.GC()
				}
			}
		}()
	}
}

// StopBackground stops what StartBackground started and waits for it.
func StopBackground() {
	background.Lock()
	defer background.Unlock()
	if background.stop == nil {
		return
	}
	close(background.stop)
	background.wg.Wait()
	background.stop = nil
}
