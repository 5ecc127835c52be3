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

// SetScanSeeds sets the most seeds for which the shares are replayed by
// walking every push (scanSeeds) until the returned function restores it.
func SetScanSeeds(n int) (restore func()) {
	old := scanSeeds
	scanSeeds = n
	return func() { scanSeeds = old }
}
