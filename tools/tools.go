//go:build tools

// Package tools pins the build tools of memview (gopy and goimports) in go.mod,
// so that `go build github.com/go-python/gopy` builds the exact pinned versions.
package tools

import (
	_ "github.com/go-python/gopy"
	_ "golang.org/x/tools/cmd/goimports"
)
