package main

import "go/types"

// underKind names the underlying type of t when memview's generated call
// entries can convert it by value: a basic type ("float64", "string") or a
// slice of a basic type ("[]float64"), however t is named. Other types give "".
func underKind(t types.Type) string {
	switch u := unalias(t).Underlying().(type) {
	case *types.Basic:
		return u.Name()
	case *types.Slice:
		if e, ok := unalias(u.Elem()).Underlying().(*types.Basic); ok {
			return "[]" + e.Name()
		}
	}
	return ""
}
