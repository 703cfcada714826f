package gopyrt

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The sentinel errors of the bound packages: the exported package-level
// variables and constants whose type implements error. The generated code
// adds each (AddSentinel) as the program starts; memview's Python layer makes
// an exception class for each and hands it over (SetSentinelClass); a Go
// error returned by a bound function then raises the class of the first
// sentinel its chain matches (errors.Is), across all bound packages.

type sentinel struct {
	name  string // "pkg.Name", by the Go package's name
	err   error
	typ   reflect.Type         // for an error type (AddErrorType): the named type, matched as a value or a pointer
	class atomic.Pointer[byte] // the Python class (a PyObject*), nil until set
}

var (
	sentinelsMu sync.Mutex
	sentinels   []*sentinel
)

// AddSentinel adds the sentinel error err, the package-level name ("pkg.Name").
func AddSentinel(name string, err error) {
	if err == nil {
		return
	}
	sentinelsMu.Lock()
	defer sentinelsMu.Unlock()
	sentinels = append(sentinels, &sentinel{name: name, err: err})
}

// AddErrorType adds the exported named type t (name "pkg.T") whose values
// or pointers implement error: an error in a chain of that type, or a
// pointer to it, raises its class (as errors.As finds it).
func AddErrorType(name string, t reflect.Type) {
	sentinelsMu.Lock()
	defer sentinelsMu.Unlock()
	sentinels = append(sentinels, &sentinel{name: name, typ: t})
}

// Sentinels lists the sentinels added, one "pkg.Name=pkg.First" line each,
// where pkg.First is the first sentinel added that is the same error (errors.Is
// both ways; an alias such as `var EmptyInputErr = ErrEmpty` names the
// variable it copies), or the sentinel itself.
func Sentinels() string {
	sentinelsMu.Lock()
	defer sentinelsMu.Unlock()
	var b strings.Builder
	for i, s := range sentinels {
		first := s.name
		for _, t := range sentinels[:i] {
			if s.err != nil && t.err != nil && same(s.err, t.err) {
				first = t.name
				break
			}
		}
		b.WriteString(s.name + "=" + first + "\n")
	}
	return b.String()
}

// same: a and b are one error (a comparable value equal to the other, or
// matched by errors.Is both ways).
func same(a, b error) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta == tb && ta.Comparable() && a == b {
		return true
	}
	return errors.Is(a, b) && errors.Is(b, a)
}

// SetSentinelClass sets the Python exception class (a PyObject*, which the
// caller keeps alive for good) of the sentinel name; false for a name never
// added.
func SetSentinelClass(name string, class unsafe.Pointer) bool {
	sentinelsMu.Lock()
	defer sentinelsMu.Unlock()
	found := false
	for _, s := range sentinels {
		if s.name == name {
			s.class.Store((*byte)(class))
			found = true
		}
	}
	return found
}

// sentinelClass is the class of the first error in err's chain (depth first,
// as errors.Is walks it) that is a sentinel with a class, or nil.
func sentinelClass(err error) unsafe.Pointer {
	sentinelsMu.Lock()
	list := sentinels
	sentinelsMu.Unlock()
	if len(list) == 0 {
		return nil
	}
	var walk func(e error) unsafe.Pointer
	walk = func(e error) unsafe.Pointer {
		for e != nil {
			for _, s := range list {
				if c := s.class.Load(); c != nil && s.matches(e) {
					return unsafe.Pointer(c)
				}
			}
			switch u := e.(type) {
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					if c := walk(x); c != nil {
						return c
					}
				}
				return nil
			default:
				return nil
			}
		}
		return nil
	}
	return walk(err)
}

// matches: the one error e (not its chain) is the sentinel, as errors.Is
// tests each error of a chain (equal and comparable, or its Is method says
// so), or for an error type, of that type or a pointer to it.
func (s *sentinel) matches(e error) bool {
	if s.typ != nil {
		t := reflect.TypeOf(e)
		return t == s.typ || t == reflect.PointerTo(s.typ)
	}
	target := s.err
	if t := reflect.TypeOf(target); reflect.TypeOf(e) == t && t.Comparable() && e == target {
		return true
	}
	if x, ok := e.(interface{ Is(error) bool }); ok && x.Is(target) {
		return true
	}
	return false
}
