package sweep

import (
	"encoding/binary"
	"hash/maphash"
)

// hash128 is a 128-bit hash of a sequence of strings and numbers, for the
// fingerprints a sweep compares within one process (a result's, a level's
// inputs): two maphash states with their own random seeds. It replaced
// FNV-128a, which hashed byte by byte and took a sixth of a sweep's CPU on
// the 1M-edge graph (docs/PERFORMANCE.md).
type hash128 struct {
	a, b maphash.Hash
	buf  [8]byte
}

var hashSeedA, hashSeedB = maphash.MakeSeed(), maphash.MakeSeed()

func newHash128() *hash128 {
	h := &hash128{}
	h.a.SetSeed(hashSeedA)
	h.b.SetSeed(hashSeedB)
	return h
}

// num hashes u.
func (h *hash128) num(u uint64) {
	binary.LittleEndian.PutUint64(h.buf[:], u)
	h.a.Write(h.buf[:])
	h.b.Write(h.buf[:])
}

// str hashes s, its length first (so that "ab","c" and "a","bc" differ).
func (h *hash128) str(s string) {
	h.num(uint64(len(s)))
	h.a.WriteString(s)
	h.b.WriteString(s)
}

// sum is the hash of what was written.
func (h *hash128) sum() [16]byte {
	var out [16]byte
	binary.LittleEndian.PutUint64(out[:8], h.a.Sum64())
	binary.LittleEndian.PutUint64(out[8:], h.b.Sum64())
	return out
}
