package daemon

import (
	"reflect"

	"github.com/teammemd/teammemd/server/api"
)

// validStatus returns st with every exported string that is not valid
// UTF-8 (a file's name, a directory's) made valid by api.ValidText, for the
// control socket's JSON. It leaves st as it is: what it changes, it copies.
func validStatus(st Status) Status {
	if v, changed := validValue(reflect.ValueOf(st)); changed {
		return v.Interface().(Status)
	}
	return st
}

// validValue returns v with its exported strings made valid, and whether
// any was not: then the value returned is a copy, down the path to each
// string changed, and v is left as it was.
func validValue(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		s := api.ValidText(v.String())
		if s == v.String() {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(s)
		return out, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := validValue(v.Elem())
		if !changed {
			return v, false
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(e)
		return out, true
	case reflect.Struct:
		return validFields(v)
	case reflect.Slice:
		return validElems(v)
	}
	return v, false
}

// validFields is validValue for a struct: its exported fields.
func validFields(v reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		f, changed := validValue(v.Field(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(v.Type()).Elem()
			out.Set(v)
		}
		out.Field(i).Set(f)
	}
	return out, out.IsValid()
}

// validElems is validValue for a slice: its elements, in a new slice.
func validElems(v reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for i := range v.Len() {
		e, changed := validValue(v.Index(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(out, v)
		}
		out.Index(i).Set(e)
	}
	return out, out.IsValid()
}
