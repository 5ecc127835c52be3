package ppr

// SetMaxPushes lowers the push limit (MaxPushes) until the returned
// function restores it, so a test reaches it in a few pushes.
func SetMaxPushes(n int) (restore func()) {
	maxPushes = n
	return func() { maxPushes = MaxPushes }
}

// CountRouteScans sets the adjacency entries route looked at in each run
// into *n until the returned function stops it.
func CountRouteScans(n *int) (stop func()) {
	afterRun = func(st *state) { *n = st.routeScans }
	return func() { afterRun = nil }
}

// MinThresholdAt and MaxPushesAt are where the refusals say the limits
// are declared.
const (
	MinThresholdAt = minThresholdAt
	MaxPushesAt    = maxPushesAt
)

// SetReplay sets how the shares are replayed (scanSeeds, scanShare)
// until the returned function restores it: SetReplay(1<<30, 0) walks
// every push for every seed, SetReplay(0, 0) takes them from the heap.
func SetReplay(seeds, share int) (restore func()) {
	oldSeeds, oldShare := scanSeeds, scanShare
	scanSeeds, scanShare = seeds, share
	return func() { scanSeeds, scanShare = oldSeeds, oldShare }
}
