package gopyrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
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
	c, _ := sentinelMatch(err)
	return c
}

// sentinelMatch is sentinelClass with the error of the chain that matched.
func sentinelMatch(err error) (unsafe.Pointer, error) {
	sentinelsMu.Lock()
	list := sentinels
	sentinelsMu.Unlock()
	if len(list) == 0 {
		return nil, nil
	}
	var walk func(e error) (unsafe.Pointer, error)
	walk = func(e error) (unsafe.Pointer, error) {
		for e != nil {
			for _, s := range list {
				if c := s.class.Load(); c != nil && s.matches(e) {
					return unsafe.Pointer(c), e
				}
			}
			switch u := e.(type) {
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					if c, m := walk(x); c != nil {
						return c, m
					}
				}
				return nil, nil
			default:
				return nil, nil
			}
		}
		return nil, nil
	}
	return walk(err)
}

// Fields is, for an err whose chain holds a value of a bound error type (the
// first match, as ExceptionFor finds it), that value's exported fields as a
// JSON object, which become the exception's attributes: numbers, bools and
// strings as they are (NaN and the infinities as Python's json reads them),
// an error field as its message, nil pointers, slices, maps and interfaces as
// null, and any other value as fmt's %v of it. "" where no error type
// matches or the type is not a struct.
func Fields(err error) string {
	_, m := sentinelMatch(err)
	if m == nil {
		return ""
	}
	v := reflect.ValueOf(m)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteString(": ")
		b.WriteString(fieldJSON(v.Field(i)))
	}
	b.WriteByte('}')
	if n == 0 {
		return ""
	}
	return b.String()
}

// fieldJSON is one field's value as Fields writes it.
func fieldJSON(v reflect.Value) string {
	quote := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return strconv.FormatFloat(f, 'g', -1, v.Type().Bits())
	case reflect.String:
		return quote(v.String())
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		if v.IsNil() {
			return "null"
		}
	}
	if v.CanInterface() {
		if e, ok := v.Interface().(error); ok {
			return quote(e.Error())
		}
		return quote(fmt.Sprintf("%v", v.Interface()))
	}
	return "null"
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
