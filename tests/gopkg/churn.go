package gopkg

import (
	"sync"
	"time"
)

// churn is a goroutine of the package's own that allocates Go memory without
// pause, as a bound package's background worker may: the fork tests fork while
// it runs (it keeps a P busy, takes the heap's lock often and starts goroutines).
var churn struct {
	sync.Mutex
	stop chan struct{}
	done chan struct{}
}

// StartChurn starts the churning goroutine (once; later calls do nothing until
// StopChurn). With pauseMicros > 0 it sleeps that long after every 64
// allocations, as a worker woken by a ticker does; with 0 it never pauses.
func StartChurn(pauseMicros int) {
	churn.Lock()
	defer churn.Unlock()
	if churn.stop != nil {
		return
	}
	churn.stop, churn.done = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		keep := make([][]byte, 0, 512)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			keep = append(keep, make([]byte, 512+(i%64)*1024))
			if len(keep) == cap(keep) {
				keep = keep[:0]
			}
			if pauseMicros > 0 && i%64 == 0 {
				time.Sleep(time.Duration(pauseMicros) * time.Microsecond)
			}
			if i%256 == 0 {
				w := make(chan int)
				go func() { w <- len(keep) }()
				<-w
			}
		}
	}(churn.stop, churn.done)
}

// StopChurn stops the churning goroutine and waits for it to end.
func StopChurn() {
	churn.Lock()
	defer churn.Unlock()
	if churn.stop == nil {
		return
	}
	close(churn.stop)
	<-churn.done
	churn.stop, churn.done = nil, nil
}
