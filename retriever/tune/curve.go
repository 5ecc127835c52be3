package tune

// CurvePoint is one measured setting seen from the held-out folds
// (docs/EVALUATION.md, "The held-out curve"). Mean is the mean over the
// queries of the setting's figure, each query's taken while its fold is
// held out; every query is held out exactly once, so it is the mean over
// all queries, and at the defaults it is HeldOut.Default. Lo and Hi are the
// lowest and highest of the folds' own means (a fold's mean on its
// queries; a fold with none has no mean and is left out): how far the
// folds disagree. ChosenBy are the folds (numbered from 1) whose training
// queries chose the setting.
//
// No training curve is given: with folds of one size it would be the same
// line (each query is trained on K−1 times), and with sizes one apart
// nearly so. What the folds add is their spread and their choices.
type CurvePoint struct {
	Mean, Lo, Hi float64
	ChosenBy     []int
}

// Curve is every measured setting's CurvePoint, in the order of
// r.Settings. It reads only r's figures and folds: no query runs again.
func Curve(r Result) []CurvePoint {
	out := make([]CurvePoint, len(r.Settings))
	for s := range r.Settings {
		p := &out[s]
		n := 0
		for f, fold := range r.Folds {
			if fold.Chosen == s {
				p.ChosenBy = append(p.ChosenBy, f+1)
			}
			if len(fold.Queries) == 0 {
				continue // no mean: it would count as 0
			}
			m := mean(r.Figures[s].Values, fold.Queries)
			if n == 0 || m < p.Lo {
				p.Lo = m
			}
			if n == 0 || m > p.Hi {
				p.Hi = m
			}
			p.Mean += m * float64(len(fold.Queries))
			n += len(fold.Queries)
		}
		if n > 0 {
			p.Mean /= float64(n)
		}
	}
	return out
}
