package sampling

import (
	"slices"
	"testing"
)

func TestQBuilders(t *testing.T) {
	fr := [][]int32{{2, 0}, {}, {3, 3, 1}}
	q := QPerEntry(fr, 4)
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if q.Rows != 5 || q.Cols != 4 || !slices.Equal(q.Indptr, []int64{0, 1, 2, 3, 4, 5}) ||
		!slices.Equal(q.Indices, []int32{2, 0, 3, 3, 1}) || !slices.Equal(q.Data, []float32{1, 1, 1, 1, 1}) {
		t.Errorf("QPerEntry = %+v", q)
	}
	m := QPerMinibatch(fr, 4)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Rows != 3 || !slices.Equal(m.Indptr, []int64{0, 2, 2, 4}) || !slices.Equal(m.Indices, []int32{0, 2, 1, 3}) {
		t.Errorf("QPerMinibatch = %+v", m)
	}
	if !slices.Equal(fr[2], []int32{3, 3, 1}) {
		t.Error("QPerMinibatch modified its input")
	}
	for name, fn := range map[string]func(){
		"entry":     func() { QPerEntry([][]int32{{4}}, 4) },
		"minibatch": func() { QPerMinibatch([][]int32{{-1}}, 4) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			fn()
		})
	}
}
