package apoc

// idTable maps ids to int32 values. Exports number their elements densely
// ("0", "1", ...), so canonical decimal ids index a slice, which is far
// faster and smaller than a map of a million strings; other ids go to a map.
type idTable struct {
	dense []int32 // value+1 by numeric id; 0 means absent
	m     map[string]int32
}

// DenseID returns the number id spells when it is a canonical decimal
// below 1e9. APOC numbers a file's elements "0", "1", ... in order, so such
// ids can index slices (here, and in graph/inmem) instead of maps.
func DenseID[T string | []byte](id T) (int, bool) {
	n := len(id)
	if n == 0 || n > 9 || (id[0] == '0' && n > 1) {
		return 0, false
	}
	k := 0
	for i := 0; i < n; i++ {
		c := id[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	return k, true
}

func idGet[T string | []byte](t *idTable, id T) (int32, bool) {
	if k, ok := DenseID(id); ok && k < len(t.dense) {
		if v := t.dense[k]; v != 0 {
			return v - 1, true
		}
	}
	if len(t.m) == 0 {
		return 0, false
	}
	v, ok := t.m[string(id)]
	return v, ok
}

// put records id, which idGet reported absent.
func (t *idTable) put(id string, v int32) {
	if k, ok := DenseID(id); ok {
		if k >= len(t.dense) && k < 2*len(t.dense)+1<<16 {
			t.dense = append(t.dense, make([]int32, k+1-len(t.dense))...)
		}
		if k < len(t.dense) {
			t.dense[k] = v + 1
			return
		}
	}
	if t.m == nil {
		t.m = make(map[string]int32)
	}
	t.m[id] = v
}
