package main

import (
	"go/types"
	"runtime"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestReadOnlyAndBlocking runs both analyses on testdata/rocases, one
// function per case each decides.
func TestReadOnlyAndBlocking(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, "./testdata/rocases")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load: %v %v", err, pkgs)
	}
	ro := newROAnalysis(pkgs)
	scope := pkgs[0].Types.Scope()
	want := map[string]string{
		"Sum": roProven, "Store": roStore, "StoreUnsafe": roStore, "StoreCallee": roStore, "Append": roStore,
		"Copy": roStore, "Closure": roStore, "Returned": roProven, "ThroughReturn": roStore,
		"Kept": roInconclusive, "ViaHeader": roProven, "StoreViaHeader": roStore, "Locked": roProven,
		"Chan": roProven, "AsmRead": roProven, "AsmStore": roStore, "AsmReuse": roProven,
		"AsmLoopStore": roStore, "AsmSpill": roStore, "AsmMemmoveFrom": roProven, "AsmMemmoveTo": roStore,
	}
	if runtime.GOARCH == "amd64" {
		want["AsmCall"] = roInconclusive
	}
	for name, outcome := range want {
		f := scope.Lookup(name).(*types.Func)
		got := ro.params(f)[0]
		if got[0] != outcome {
			t.Errorf("%s: %s (%s), want %s", name, got[0], got[1], outcome)
		}
		if name == "Returned" && got[2] == "" {
			t.Errorf("Returned: not reported as returning its parameter's memory")
		}
	}
	for name, blocks := range map[string]bool{"Sum": false, "Store": false, "Locked": true, "Chan": true,
		"AsmRead": false} {
		why := ro.blocking(scope.Lookup(name).(*types.Func))
		if (why != "") != blocks {
			t.Errorf("%s: blocking %q, want blocking=%v", name, why, blocks)
		}
	}
}
