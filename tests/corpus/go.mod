// The corpus: unmodified Go modules from the module proxy that CI binds with
// memview (.ci/run, tests/corpus/check_corpus.py). This module only pins them:
// go.sum holds their checksums, and `go mod download -json` their directories.
module github.com/memview/memview/tests/corpus

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/golang/snappy v1.0.0
	github.com/google/uuid v1.6.0
	github.com/mmcloughlin/geohash v0.10.0
	github.com/montanaflynn/stats v0.14.0
	github.com/mr-tron/base58 v1.2.0
	github.com/spaolacci/murmur3 v1.1.0
	github.com/zeebo/xxh3 v1.1.0
	gonum.org/v1/gonum v0.17.0
	lukechampine.com/blake3 v1.4.1
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
