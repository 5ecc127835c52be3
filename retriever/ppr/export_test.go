package ppr

// SetMaxPushes lowers the push limit (MaxPushes) until the returned
// function restores it, so a test reaches it in a few pushes.
func SetMaxPushes(n int) (restore func()) {
	maxPushes = n
	return func() { maxPushes = MaxPushes }
}

// MinThresholdAt and MaxPushesAt are where the refusals say the limits
// are declared.
const (
	MinThresholdAt = minThresholdAt
	MaxPushesAt    = maxPushesAt
)
