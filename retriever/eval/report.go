package eval

// Outcome is what one retriever returned for one query: its ranked node
// ids, best first, and the length in characters of the context an agent
// would be given (the ranking's `llm` format, which the caller renders).
type Outcome struct {
	Ranked       []string
	ContextChars int
	// Seeds are the node ids the query ran from (for another system's
	// run, the query's own seeds): a relevant seed counts as seeded.
	Seeds []string
	// Whole says the caller knows the retriever's whole ranking, beyond
	// the K it returned; Below are the nodes that ranking holds below the
	// top K (the relevant ones suffice). Without Whole (another system's
	// run), a relevant node neither seeded nor ranked is NotFound.
	Whole bool
	Below []string
}

// Where says where a query's relevant nodes (grade ≥ 1) went in one
// retriever's answer, each counted once, in the first of these that
// holds (docs/EVALUATION.md, "Where the relevant nodes went"): Seeded (a
// seed of the query), Found (among the hits returned), and for a retriever
// whose whole ranking is known Cut (in it, below K) or Unreached (not in
// it), for another system's run NotFound. They add up to the relevant
// count.
type Where struct {
	Seeded, Found, Cut, Unreached, NotFound int
}

func (w *Where) add(o Where) {
	w.Seeded += o.Seeded
	w.Found += o.Found
	w.Cut += o.Cut
	w.Unreached += o.Unreached
	w.NotFound += o.NotFound
}

// where places each relevant node of rel in o (Where).
func where(o Outcome, rel map[string]int) Where {
	var w Where
	seeds := SetOf(o.Seeds)
	hits := SetOf(o.Ranked)
	below := SetOf(o.Below)
	for id, g := range rel {
		switch {
		case g < 1:
		case seeds[id]:
			w.Seeded++
		case hits[id]:
			w.Found++
		case !o.Whole:
			w.NotFound++
		case below[id]:
			w.Cut++
		default:
			w.Unreached++
		}
	}
	return w
}

// SetOf is ids as a set.
func SetOf(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// Row is one query's line of a retriever's report.
type Row struct {
	Query string
	// Values are the metrics' values, in Report.Metrics' order.
	Values       []float64
	Hits         int
	ContextChars int
	// Found is how many relevant nodes are among the hits, of Relevant (R).
	Found    int
	Relevant int
	// Where says where the relevant nodes went.
	Where Where
}

// Run is one retriever's report over a query set.
type Run struct {
	Retriever string
	// Mean is each metric's mean over the queries, in Report.Metrics'
	// order.
	Mean []float64
	// MeanHits and MeanContextChars are the cost: the hits returned and
	// the characters of the llm context, each the mean over the queries.
	MeanHits         float64
	MeanContextChars float64
	// Where is the rows' Where summed over the queries, and Whole whether
	// the retriever's whole rankings were known (a retriever memoria
	// ran), so that its lost are Cut and Unreached, not NotFound.
	Where Where
	Whole bool
	Rows  []Row
	// Diff and P compare the run with the report's first, metric by
	// metric: the mean difference (this run's mean minus the first's) and
	// the paired randomization test's two-sided p-value. Both nil for the
	// first run.
	Diff []float64
	P    []float64
	// PHolm are P adjusted by Holm–Bonferroni over the comparisons of
	// every row against the first, metric by metric (Holm); nil for the
	// first run.
	PHolm []float64
	// CI is each metric's 95% bootstrap interval of the mean
	// (BootstrapCI: Resamples, BootstrapSeed).
	CI [][2]float64
}

// Missing is a node a query names that the graph does not hold: a seed,
// or a relevant node (which stays judged: it counts in R, so recall and
// nDCG say what a retriever could not find).
type Missing struct {
	Query  string
	NodeID string
	Seed   bool
}

// Report is several retrievers measured over one query set.
type Report struct {
	Metrics []Metric
	// Queries is the number of queries; Judged and Relevant the judged
	// nodes and those of grade 1 or more, over all queries.
	Queries  int
	Judged   int
	Relevant int
	// Permutations and Seed are the randomization test's.
	Permutations int
	Seed         uint64
	// Alpha is the level below which an adjusted p (Run.PHolm) marks a
	// difference as significant (DefaultAlpha unless the caller sets it).
	Alpha float64
	Runs  []Run
	// Missing are the nodes queries name that the graph lacks (the caller
	// fills them in), by query, then node id.
	Missing []Missing
	// UnjudgedQrels are query ids the qrels judge that the query set
	// lacks, ignored (Judge).
	UnjudgedQrels []string
	// Seeding, when the queries ran both from their given seeds and from
	// the seeds the gather stage found, compares the two per retriever
	// (the caller fills it in: Paired).
	Seeding []SeedingCost
	// SeedingMode says where the queries' seeds came from: "given",
	// "gathered" or "both"; "" when no retriever ran (runs alone).
	SeedingMode string
}

// SeedingCost is what the gather stage costs one retriever: its row run
// from the gathered seeds (Runs[Gathered]) against its row from the given
// ones (Runs[Given]), metric by metric: the mean difference, gathered
// minus given, and the paired randomization test's p.
type SeedingCost struct {
	Retriever       string
	Given, Gathered int
	Diff, P         []float64
}

// Paired compares rep's row b with its row a over the same queries,
// metric by metric: the mean difference (b's mean minus a's) and the
// two-sided paired randomization test's p (Permutations rounds, Seed), as
// Evaluate compares each row with the first.
func (rep Report) Paired(a, b int) (diff, p []float64) {
	diff = make([]float64, len(rep.Metrics))
	p = make([]float64, len(rep.Metrics))
	for m := range rep.Metrics {
		x := make([]float64, len(rep.Runs[a].Rows))
		y := make([]float64, len(x))
		for q := range x {
			x[q], y[q] = rep.Runs[a].Rows[q].Values[m], rep.Runs[b].Rows[q].Values[m]
		}
		diff[m] = rep.Runs[b].Mean[m] - rep.Runs[a].Mean[m]
		p[m] = RandomizationTest(x, y, Permutations, Seed)
	}
	return diff, p
}

// Evaluate measures each retriever of names over queries (judged: Judge):
// outcomes[r][q] is retriever names[r]'s outcome for queries[q]. Each
// metric of Metrics(ks) per query, its mean, the cost, and each run
// against the first by RandomizationTest (Permutations rounds, Seed).
func Evaluate(queries []Query, names []string, outcomes [][]Outcome, ks []int) Report {
	rep := Report{Metrics: Metrics(ks), Queries: len(queries), Permutations: Permutations, Seed: Seed, Alpha: DefaultAlpha}
	for _, q := range queries {
		rep.Judged += len(q.Relevant)
		rep.Relevant += q.NumRelevant()
	}
	perMetric := make([][][]float64, len(names)) // run, metric, query
	for r, name := range names {
		run := Run{Retriever: name, Mean: make([]float64, len(rep.Metrics)), Rows: make([]Row, len(queries))}
		perMetric[r] = make([][]float64, len(rep.Metrics))
		for m := range rep.Metrics {
			perMetric[r][m] = make([]float64, len(queries))
		}
		for qi, q := range queries {
			o := outcomes[r][qi]
			row := Row{Query: q.ID, Values: make([]float64, len(rep.Metrics)), Hits: len(o.Ranked), ContextChars: o.ContextChars,
				Found: relevantIn(o.Ranked, q.Relevant, len(o.Ranked)), Relevant: q.NumRelevant(), Where: where(o, q.Relevant)}
			run.Where.add(row.Where)
			run.Whole = run.Whole || o.Whole
			for m, metric := range rep.Metrics {
				v := metric.Value(o.Ranked, q.Relevant)
				row.Values[m] = v
				perMetric[r][m][qi] = v
				run.Mean[m] += v
			}
			run.MeanHits += float64(row.Hits)
			run.MeanContextChars += float64(row.ContextChars)
			run.Rows[qi] = row
		}
		if n := float64(len(queries)); n > 0 {
			for m := range run.Mean {
				run.Mean[m] /= n
			}
			run.MeanHits /= n
			run.MeanContextChars /= n
		}
		if r > 0 {
			run.Diff = make([]float64, len(rep.Metrics))
			run.P = make([]float64, len(rep.Metrics))
			for m := range rep.Metrics {
				run.Diff[m] = run.Mean[m] - rep.Runs[0].Mean[m]
				run.P[m] = RandomizationTest(perMetric[0][m], perMetric[r][m], Permutations, Seed)
			}
		}
		run.CI = BootstrapCI(perMetric[r], Resamples, BootstrapSeed)
		rep.Runs = append(rep.Runs, run)
	}
	if len(rep.Runs) > 1 {
		for m := range rep.Metrics {
			ps := make([]float64, len(rep.Runs)-1)
			for r := range ps {
				ps[r] = rep.Runs[r+1].P[m]
			}
			for r, adj := range Holm(ps) {
				if rep.Runs[r+1].PHolm == nil {
					rep.Runs[r+1].PHolm = make([]float64, len(rep.Metrics))
				}
				rep.Runs[r+1].PHolm[m] = adj
			}
		}
	}
	return rep
}
