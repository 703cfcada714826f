// The corpus: unmodified Go modules from the module proxy that CI binds with
// memview (.ci/run, tests/corpus/check_corpus.py). This module only pins them:
// go.sum holds their checksums, and `go mod download -json` their directories.
module github.com/memview/memview/tests/corpus

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/golang/snappy v1.0.0
	github.com/montanaflynn/stats v0.14.0
)
