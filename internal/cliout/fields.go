package cliout

import (
	"reflect"
	"slices"
	"strings"
)

// Fields returns the JSON paths of the fields of v's type (a struct, or a
// pointer to one), sorted: "traffic.bytes_sent" for a map of structs,
// "peak_rss.min" for a nested one, embedded structs' fields promoted. A
// test compares the paths of the command's types with these, so that a
// summary type the command still declares itself cannot drift from its
// schema here.
func Fields(v any) []string {
	var out []string
	walk(reflect.TypeOf(v), "", &out)
	slices.Sort(out)
	return out
}

func walk(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
		if prefix != "" {
			*out = append(*out, prefix)
		}
		return
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			walk(f.Type, prefix, out)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		walk(f.Type, name, out)
	}
}
