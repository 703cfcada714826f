// Package corpus imports the modules of the corpus, so that go.mod and go.sum
// pin them; it is never bound itself.
package corpus

import (
	_ "github.com/cespare/xxhash/v2"
	_ "github.com/golang/snappy"
	_ "github.com/google/uuid"
	_ "github.com/mmcloughlin/geohash"
	_ "github.com/montanaflynn/stats"
	_ "github.com/mr-tron/base58"
	_ "github.com/spaolacci/murmur3"
	_ "github.com/zeebo/xxh3"
	_ "gonum.org/v1/gonum/floats"
	_ "lukechampine.com/blake3"
)
