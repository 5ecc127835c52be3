package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/eval"
)

// EvalJSON is `memoria eval --format json`: one object and a newline,
//
//	{"metrics": ["P@5", ..., "MRR", "MAP"], "queries": 6, "judged": 30, "relevant": 19,
//	 "randomization": {"permutations": 10000, "seed": 20260321},
//	 "runs": [{"retriever": "activation", "mean": {"P@5": 0.4, ...}, "mean_hits": 8.5,
//	           "mean_context_chars": 2310.5, "versus_first": null,
//	           "queries": [{"id": "q1", "values": {"P@5": 0.6, ...}, "hits": 10,
//	                        "context_chars": 2400, "found": 3, "relevant": 4}, ...]},
//	          {"retriever": "ppr", ..., "versus_first": {"against": "activation",
//	           "diff": {"P@5": 0.1, ...}, "p": {"P@5": 0.52, ...}}, ...}],
//	 "missing": [{"query": "q3", "node_id": "N9999", "seed": false}],
//	 "unjudged_qrels": ["q9"]}
//
// metric objects keep the order of "metrics"; numbers at full precision;
// graph text \u-escaped where it could act on a terminal
// (textsafe.JSONWriter).
func EvalJSON(rep eval.Report) ([]byte, error) { return EvalJSONWith(rep, RunMisses{}) }

// EvalJSONWith is EvalJSON with eval --why-not's answers under "why_not"
// (RunMissesJSON; left out when no retriever was asked).
func EvalJSONWith(rep eval.Report, why RunMisses) ([]byte, error) {
	type versus struct {
		Against string           `json:"against"`
		Diff    retriever.Fields `json:"diff"`
		P       retriever.Fields `json:"p"`
		PHolm   retriever.Fields `json:"p_holm"`
	}
	type query struct {
		ID           string           `json:"id"`
		Values       retriever.Fields `json:"values"`
		Hits         int              `json:"hits"`
		ContextChars int              `json:"context_chars"`
		Relevant     int              `json:"relevant"`
		Seeded       int              `json:"seeded"`
		Found        int              `json:"found"`
		Lost         lostJSON         `json:"lost"`
	}
	type run struct {
		Retriever        string           `json:"retriever"`
		Mean             retriever.Fields `json:"mean"`
		MeanHits         float64          `json:"mean_hits"`
		MeanContextChars float64          `json:"mean_context_chars"`
		CI               retriever.Fields `json:"ci"`
		Versus           *versus          `json:"versus_first"`
		Seeded           int              `json:"seeded"`
		Found            int              `json:"found"`
		Lost             lostJSON         `json:"lost"`
		Queries          []query          `json:"queries"`
	}
	type missing struct {
		Query  string `json:"query"`
		NodeID string `json:"node_id"`
		Seed   bool   `json:"seed"`
	}
	fields := func(v []float64) retriever.Fields {
		f := make(retriever.Fields, len(rep.Metrics))
		for i, m := range rep.Metrics {
			f[i] = retriever.Field{Name: m.Name(), Value: v[i]}
		}
		return f
	}
	names := make([]string, len(rep.Metrics))
	for i, m := range rep.Metrics {
		names[i] = m.Name()
	}
	runs := make([]run, len(rep.Runs))
	for i, r := range rep.Runs {
		out := run{Retriever: r.Retriever, Mean: fields(r.Mean), MeanHits: r.MeanHits, MeanContextChars: r.MeanContextChars, Queries: []query{},
			CI: make(retriever.Fields, len(rep.Metrics)), Seeded: r.Where.Seeded, Found: r.Where.Found, Lost: lostOf(r.Where, r.Whole)}
		for m, metric := range rep.Metrics {
			ci := [2]float64{}
			if m < len(r.CI) {
				ci = r.CI[m]
			}
			out.CI[m] = retriever.Field{Name: metric.Name(), Value: ci}
		}
		if r.Diff != nil {
			out.Versus = &versus{Against: rep.Runs[0].Retriever, Diff: fields(r.Diff), P: fields(r.P), PHolm: fields(r.PHolm)}
		}
		for _, row := range r.Rows {
			out.Queries = append(out.Queries, query{row.Query, fields(row.Values), row.Hits, row.ContextChars, row.Relevant,
				row.Where.Seeded, row.Where.Found, lostOf(row.Where, r.Whole)})
		}
		runs[i] = out
	}
	type cost struct {
		Retriever string           `json:"retriever"`
		Given     retriever.Fields `json:"given"`
		Gathered  retriever.Fields `json:"gathered"`
		Diff      retriever.Fields `json:"diff"`
		P         retriever.Fields `json:"p"`
	}
	var costs []cost
	for _, c := range rep.Seeding {
		costs = append(costs, cost{c.Retriever, fields(rep.Runs[c.Given].Mean), fields(rep.Runs[c.Gathered].Mean), fields(c.Diff), fields(c.P)})
	}
	miss := []missing{}
	for _, m := range rep.Missing {
		miss = append(miss, missing(m))
	}
	unjudged := rep.UnjudgedQrels
	if unjudged == nil {
		unjudged = []string{}
	}
	return jsonLine(struct {
		Metrics       []string `json:"metrics"`
		Queries       int      `json:"queries"`
		Judged        int      `json:"judged"`
		Relevant      int      `json:"relevant"`
		Randomization struct {
			Permutations int    `json:"permutations"`
			Seed         uint64 `json:"seed"`
		} `json:"randomization"`
		Bootstrap struct {
			Resamples int    `json:"resamples"`
			Seed      uint64 `json:"seed"`
		} `json:"bootstrap"`
		Alpha         float64        `json:"alpha"`
		Seeding       string         `json:"seeding,omitempty"`
		Runs          []run          `json:"runs"`
		GatherCost    []cost         `json:"gather_cost,omitempty"`
		WhyNot        *RunMissesJSON `json:"why_not,omitempty"`
		Missing       []missing      `json:"missing"`
		UnjudgedQrels []string       `json:"unjudged_qrels"`
	}{Metrics: names, Seeding: rep.SeedingMode, GatherCost: costs, WhyNot: runMissesJSON(why), Queries: rep.Queries, Judged: rep.Judged, Relevant: rep.Relevant,
		Randomization: struct {
			Permutations int    `json:"permutations"`
			Seed         uint64 `json:"seed"`
		}{rep.Permutations, rep.Seed},
		Bootstrap: struct {
			Resamples int    `json:"resamples"`
			Seed      uint64 `json:"seed"`
		}{eval.Resamples, eval.BootstrapSeed},
		Alpha: rep.Alpha, Runs: runs, Missing: miss, UnjudgedQrels: unjudged})
}

// lostJSON is where the relevant nodes a retriever did not return went:
// for a retriever memoria ran, cut (in its whole ranking, below K) and
// unreached (not in it); for another system's run, whose whole ranking is
// not known, not_found.
type lostJSON struct {
	Cut       *int `json:"cut,omitempty"`
	Unreached *int `json:"unreached,omitempty"`
	NotFound  *int `json:"not_found,omitempty"`
}

func lostOf(w eval.Where, whole bool) lostJSON {
	if whole {
		return lostJSON{Cut: &w.Cut, Unreached: &w.Unreached}
	}
	return lostJSON{NotFound: &w.NotFound}
}

// EvalText is the report as text tables: the mean of each metric and the
// cost per retriever; each retriever against the first, the mean
// difference and the randomization test's p per metric; a table per
// retriever with a row per query (seeded, found and lost: where its
// relevant nodes went, of R, as the table before them says in total); then the nodes queries name that the graph lacks and the
// qrels' queries the set lacks. Metrics are written with 4 decimals,
// differences signed, mean hits with 1 and context characters as whole
// numbers. Query ids are escaped (textsafe.Escape), node ids written with
// DisplayID (render/testdata/eval_text.golden):
//
//	2 queries, 3 judged nodes, 3 relevant (grade ≥ 1)
//	retriever  P@1     P@2     recall@1  recall@2  nDCG@1  nDCG@2  MRR     MAP     hits  context
//	first      0.5000  0.2500  0.2500    0.2500    0.5000  0.3801  0.5000  0.4167  1.5   12
//	second     0.5000  0.5000  0.2500    0.7500    0.2500  0.5055  0.7500  0.5000  1.5   12
//	against first: mean difference, and p of a two-sided paired randomization test (10000 permutations, seed 20260321)
//	retriever        P@1      P@2      recall@1  recall@2  nDCG@1   nDCG@2   MRR      MAP
//	second     diff  +0.0000  +0.2500  +0.0000   +0.5000   -0.2500  +0.1254  +0.2500  +0.0833
//	           p     1.0000   1.0000   1.0000    1.0000    1.0000   1.0000   1.0000   1.0000
//	per query: first
//	…
func EvalText(rep eval.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d queries, %d judged nodes, %d relevant (grade ≥ 1)\n", rep.Queries, rep.Judged, rep.Relevant)
	head := []string{"retriever"}
	for _, m := range rep.Metrics {
		head = append(head, m.Name())
	}
	rows := [][]string{append(head, "hits", "context")}
	for _, r := range rep.Runs {
		row := append([]string{textsafe.Escape(r.Retriever)}, metricCells(r.Mean, "%.4f")...)
		rows = append(rows, append(row, strconv.FormatFloat(r.MeanHits, 'f', 1, 64), strconv.FormatFloat(r.MeanContextChars, 'f', 0, 64)))
	}
	writeTable(&b, rows)
	fmt.Fprintf(&b, "95%% bootstrap interval of each mean (%d resamples of the queries, seed %d)\n", eval.Resamples, eval.BootstrapSeed)
	rows = [][]string{head}
	for _, r := range rep.Runs {
		cells := make([]string, len(r.CI))
		for i, ci := range r.CI {
			cells[i] = fmt.Sprintf("%.4f–%.4f", ci[0], ci[1])
		}
		rows = append(rows, append([]string{textsafe.Escape(r.Retriever)}, cells...))
	}
	writeTable(&b, rows)
	if len(rep.Runs) > 1 {
		fmt.Fprintf(&b, "against %s: mean difference, and p of a two-sided paired randomization test (%d permutations, seed %d);\n",
			textsafe.Escape(rep.Runs[0].Retriever), rep.Permutations, rep.Seed)
		fmt.Fprintf(&b, "p_holm: p adjusted by Holm–Bonferroni over the %d comparisons of each metric, * below --significance %s\n", len(rep.Runs)-1, Num(rep.Alpha))
		rows = [][]string{append([]string{"retriever", ""}, head[1:]...)}
		for _, r := range rep.Runs[1:] {
			rows = append(rows, append([]string{textsafe.Escape(r.Retriever), "diff"}, metricCells(r.Diff, "%+.4f")...))
			rows = append(rows, append([]string{"", "p"}, metricCells(r.P, "%.4f")...))
			holm := metricCells(r.PHolm, "%.4f")
			for i := range holm {
				if r.PHolm[i] < rep.Alpha {
					holm[i] += "*"
				}
			}
			rows = append(rows, append([]string{"", "p_holm"}, holm...))
		}
		writeTable(&b, rows)
	}
	writeWhere(&b, rep)
	if len(rep.Seeding) > 0 {
		fmt.Fprintf(&b, "what the gather costs: each retriever from the gathered seeds against the given ones, the mean difference (gathered − given)\nand p of a two-sided paired randomization test (%d permutations, seed %d)\n", rep.Permutations, rep.Seed)
		rows = [][]string{append([]string{"retriever", ""}, head[1:]...)}
		for _, c := range rep.Seeding {
			rows = append(rows, append([]string{textsafe.Escape(c.Retriever), "diff"}, metricCells(c.Diff, "%+.4f")...))
			rows = append(rows, append([]string{"", "p"}, metricCells(c.P, "%.4f")...))
		}
		writeTable(&b, rows)
	}
	for _, r := range rep.Runs {
		fmt.Fprintf(&b, "per query: %s\n", textsafe.Escape(r.Retriever))
		rows = [][]string{append(append([]string{"query"}, head[1:]...), "seeded", "found", "lost", "R", "hits", "context")}
		for _, q := range r.Rows {
			row := append([]string{textsafe.Escape(q.Query)}, metricCells(q.Values, "%.4f")...)
			w := q.Where
			rows = append(rows, append(row, strconv.Itoa(w.Seeded), strconv.Itoa(w.Found), strconv.Itoa(w.Cut+w.Unreached+w.NotFound),
				strconv.Itoa(q.Relevant), strconv.Itoa(q.Hits), strconv.Itoa(q.ContextChars)))
		}
		writeTable(&b, rows)
	}
	if len(rep.Missing) > 0 {
		b.WriteString("not in the graph (relevant nodes stay judged: no retriever can find them):\n")
		for _, m := range rep.Missing {
			what := "relevant"
			if m.Seed {
				what = "seed"
			}
			fmt.Fprintf(&b, "  %s %s %s\n", textsafe.Escape(m.Query), what, DisplayID(m.NodeID))
		}
	}
	if len(rep.UnjudgedQrels) > 0 {
		ids := make([]string, len(rep.UnjudgedQrels))
		for i, id := range rep.UnjudgedQrels {
			ids[i] = textsafe.Escape(id)
		}
		fmt.Fprintf(&b, "ignored: the qrels judge queries the query set lacks: %s\n", strings.Join(ids, ", "))
	}
	return b.String()
}

// writeWhere is EvalText's table of where each row's relevant nodes went,
// summed over the queries (eval.Where): a retriever's lost split into cut
// and unreached, a run's (whose whole ranking is not known) not found.
func writeWhere(b *strings.Builder, rep eval.Report) {
	fmt.Fprintf(b, "where the %d relevant nodes went, each counted once: seeded (a seed), found (in the top K), cut (ranked below K), unreached (not ranked); a run's: not found\n", rep.Relevant)
	rows := [][]string{{"retriever", "seeded", "found", "cut", "unreached", "not found"}}
	for _, r := range rep.Runs {
		w := r.Where
		row := []string{textsafe.Escape(r.Retriever), strconv.Itoa(w.Seeded), strconv.Itoa(w.Found), "-", "-", "-"}
		if r.Whole {
			row[3], row[4] = strconv.Itoa(w.Cut), strconv.Itoa(w.Unreached)
		} else {
			row[5] = strconv.Itoa(w.NotFound)
		}
		rows = append(rows, row)
	}
	writeTable(b, rows)
}

// metricCells formats each value with format.
func metricCells(v []float64, format string) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprintf(format, x)
		if out[i] == "-0.0000" { // a difference that rounds to none has no sign
			out[i] = "+0.0000"
		}
	}
	return out
}

// writeTable writes rows as columns two spaces apart, each as wide as its
// widest cell, the last cell of a row unpadded.
func writeTable(b *strings.Builder, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], width(c))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(row)-1 {
				c = padRight(c, widths[i])
			}
			b.WriteString(c)
		}
		b.WriteString("\n")
	}
}

// EvalMarkdown is the report as the Markdown table a person pastes into a
// report: a row per retriever (or run) with each metric's mean, the best
// mean of each metric in bold (every one that ties it), a † after a mean
// whose difference from the first row survives Holm's adjustment below
// the report's alpha, and a note saying so.
func EvalMarkdown(rep eval.Report) string {
	var b strings.Builder
	b.WriteString("| retriever |")
	sep := "|---|"
	for _, m := range rep.Metrics {
		b.WriteString(" " + m.Name() + " |")
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	best := make([]float64, len(rep.Metrics))
	for m := range best {
		best[m] = math.Inf(-1)
		for _, r := range rep.Runs {
			best[m] = max(best[m], r.Mean[m])
		}
	}
	for _, r := range rep.Runs {
		b.WriteString("| " + markdownCell(r.Retriever) + " |")
		for m, v := range r.Mean {
			cell := fmt.Sprintf("%.4f", v)
			if v == best[m] {
				cell = "**" + cell + "**"
			}
			if r.PHolm != nil && r.PHolm[m] < rep.Alpha {
				cell += " †"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%d queries. Bold: the best mean of each metric. †: differs from %s, p < %s after Holm–Bonferroni over %d comparisons (two-sided paired randomization test, %d permutations).\n",
		rep.Queries, markdownCell(rep.Runs[0].Retriever), Num(rep.Alpha), max(0, len(rep.Runs)-1), rep.Permutations)
	return b.String()
}

// markdownCell is s escaped for a Markdown table cell: its terminal-unsafe
// runes as textsafe escapes them, and |, `, *, _ and \ behind a backslash.
func markdownCell(s string) string {
	s = textsafe.Escape(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("|`*_\\[]<>", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
