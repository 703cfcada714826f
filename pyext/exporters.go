package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memview/memview/memview"
)

// Go values that lend their memory to Python: anything implementing
// memview.Exporter, registered here under an integer id that Python holds
// (Python never holds a Go value). mv.from_exporter(id) asks the exporter for a
// view once (memview.Export), and the view becomes an ordinary memview array:
// getbuffer still calls no Go, and the exporter's ReleaseView runs when Python
// has dropped the array and every view and buffer export of it.

var exporters struct {
	sync.Mutex
	next uint64
	m    map[uint64]memview.Exporter
}

// registerExporter makes e reachable from Python as mv.from_exporter(id).
// The registry keeps e alive until DropExporter(id).
func registerExporter(e memview.Exporter) uint64 {
	exporters.Lock()
	defer exporters.Unlock()
	if exporters.m == nil {
		exporters.m = map[uint64]memview.Exporter{}
	}
	exporters.next++
	exporters.m[exporters.next] = e
	return exporters.next
}

// dropExporter forgets an id (views already lent stay valid).
func dropExporter(id uint64) (memview.Exporter, error) { return findExporter(id, true) }

func exporterOf(id uint64) (memview.Exporter, error) { return findExporter(id, false) }

// findExporter looks an id up, and forgets it when drop is set.
func findExporter(id uint64, drop bool) (memview.Exporter, error) {
	exporters.Lock()
	defer exporters.Unlock()
	e, ok := exporters.m[id]
	if !ok {
		return nil, fmt.Errorf("memview: no Go exporter with id %d (never registered, or closed): %w", id, memview.ErrInvalid)
	}
	if drop {
		delete(exporters.m, id)
	}
	return e, nil
}

// errBuffer marks an error reported as BufferError: an exporter refusing a request.
var errBuffer = errors.New("buffer request refused")

//export mvgo_from_exporter
func mvgo_from_exporter(id C.uint64_t, writable C.int, m *C.mv_meta, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	x, err := exporterOf(uint64(id))
	if err != nil {
		return setErr(e, err)
	}
	req := memview.ReqRecordsRO
	if writable > 0 {
		req = memview.ReqRecords
	}
	a, err := memview.Export(x, req)
	if err != nil {
		return setErr(e, fmt.Errorf("memview.from_exporter: %w (%w)", err, errBuffer))
	}
	if writable == 0 { // a read-only view of what was lent
		ro, err := a.AsReadOnly()
		if rerr := a.Release(); err == nil {
			err = rerr
		}
		if err != nil {
			return setErr(e, err)
		}
		a = ro
	}
	fillMeta(a, m)
	return 0
}

//export mvgo_drop_exporter
func mvgo_drop_exporter(id C.uint64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	x, err := dropExporter(uint64(id))
	if err != nil {
		return setErr(e, err)
	}
	if c, ok := x.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil && !errors.Is(err, memview.ErrExported) {
			return setErr(e, err)
		}
	}
	return 0
}
