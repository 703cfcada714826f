// Package corpus imports the modules of the corpus, so that go.mod and go.sum
// pin them; it is never bound itself.
package corpus

import (
	_ "github.com/cespare/xxhash/v2"
	_ "github.com/golang/snappy"
	_ "github.com/montanaflynn/stats"
)
