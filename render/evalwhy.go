package render

import (
	"fmt"
	"strings"

	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever/rankwhy"
)

// RunMiss is a relevant node another system's run (eval --run) neither
// seeded nor returned for a query, with a retriever's account of it
// (eval --why-not NAME, docs/EVALUATION.md "Other systems' runs").
type RunMiss struct {
	Run, Query string
	Answer     rankwhy.Answer
}

// RunMisses are eval --why-not's answers: the retriever asked, its
// answers, and the misses left unanswered beyond the limit per run and
// query (Left).
type RunMisses struct {
	Retriever string
	Misses    []RunMiss
	Left      int
	// PerQuery is the most misses answered per run and query.
	PerQuery int
}

// RunMissesText is the text form: a line per miss, the run, query and
// node, the retriever's verdict and its one-sentence detail
// (RankingWhyDetail); ids through DisplayID, names through
// textsafe.Escape.
//
//	why the runs missed, by ppr's account (at most 10 a run and query):
//	  prod  vpn  T4006: cut (rank 4, below the top 2: score 0.01526 against the 2nd hit T4004's 0.3158, …)
func RunMissesText(m RunMisses) string {
	if m.Retriever == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "why the runs missed their relevant nodes, by %s's account (at most %d a run and query):\n", textsafe.Escape(m.Retriever), m.PerQuery)
	if len(m.Misses) == 0 {
		b.WriteString("  none: every relevant node was seeded or returned\n")
	}
	for _, x := range m.Misses {
		fmt.Fprintf(&b, "  %s  %s  %s: %s (%s)\n", textsafe.Escape(x.Run), textsafe.Escape(x.Query), DisplayID(x.Answer.NodeID), x.Answer.Verdict, RankingWhyDetail(x.Answer))
	}
	if m.Left > 0 {
		fmt.Fprintf(&b, "  and %d more not answered\n", m.Left)
	}
	return b.String()
}

// RunMissesJSON is the wire form, `"why_not"` in eval's JSON: the
// retriever, each miss as {"run", "query", "answer": RankingWhyJSON}, and
// how many were left unanswered.
type RunMissesJSON struct {
	Retriever string        `json:"retriever"`
	PerQuery  int           `json:"per_query"`
	Misses    []runMissJSON `json:"misses"`
	Left      int           `json:"left"`
}

type runMissJSON struct {
	Run    string         `json:"run"`
	Query  string         `json:"query"`
	Answer RankingWhyJSON `json:"answer"`
}

func runMissesJSON(m RunMisses) *RunMissesJSON {
	if m.Retriever == "" {
		return nil
	}
	out := &RunMissesJSON{Retriever: m.Retriever, PerQuery: m.PerQuery, Misses: []runMissJSON{}, Left: m.Left}
	for _, x := range m.Misses {
		out.Misses = append(out.Misses, runMissJSON{x.Run, x.Query, ToRankingWhyJSON(x.Answer)})
	}
	return out
}
