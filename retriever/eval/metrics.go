package eval

import (
	"math"
	"slices"
	"strconv"
)

// The metrics are trec_eval's (version 9.0.4 and later, usnistgov/trec_eval),
// over one query's ranked node ids (best first, as the retriever ranked
// them: memoria never reorders a ranking) and its judgments (node id to
// grade). A node is relevant when its grade is 1 or more (trec_eval's
// default relevance level); R is the number of relevant judged nodes,
// found or not. An id not judged counts as not relevant.

// Precision is trec_eval's P_k: the relevant nodes among the first k
// ranked, divided by k — by k even when fewer than k were returned.
//
// Worked: ranked [A B C], judged {A: 2, C: 1, D: 1}: P@2 = 1/2 (A),
// P@5 = 2/5 (A, C; 3 returned, still over 5).
func Precision(ranked []string, judged map[string]int, k int) float64 {
	return float64(relevantIn(ranked, judged, k)) / float64(k)
}

// Recall is trec_eval's recall_k: the relevant nodes among the first k
// ranked, divided by R (0 when R is 0).
//
// Worked: ranked [A B C], judged {A: 2, C: 1, D: 1} (R = 3): R@2 = 1/3,
// R@5 = 2/3 (D never found).
func Recall(ranked []string, judged map[string]int, k int) float64 {
	r := numRelevant(judged)
	if r == 0 {
		return 0
	}
	return float64(relevantIn(ranked, judged, k)) / float64(r)
}

// NDCG is trec_eval's ndcg_cut_k: DCG@k / IDCG@k with gain = the grade
// (only grades above 0 count) and discount log2(rank + 1), so rank 1 is
// undiscounted (log2 2 = 1); the ideal ranking is every judged node with a
// grade above 0, found or not, in descending grade, cut at k. 0 when IDCG
// is 0.
//
// Worked: ranked [A B C], judged {A: 2, C: 1, D: 1}:
//
//	DCG@5  = 2/log2 2 + 1/log2 4                 = 2 + 0.5          = 2.5
//	IDCG@5 = 2/log2 2 + 1/log2 3 + 1/log2 4      = 2 + 0.63093 + 0.5 = 3.13093
//	nDCG@5 = 2.5 / 3.13093                                          = 0.79848
//	nDCG@2 = 2 / (2 + 0.63093)                                      = 0.76018
func NDCG(ranked []string, judged map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		if g := judged[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var gains []int
	for _, g := range judged {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	slices.Sort(gains)
	slices.Reverse(gains)
	ideal := 0.0
	for i, g := range gains[:min(k, len(gains))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// ReciprocalRank is trec_eval's recip_rank: 1 / the rank of the first
// relevant node in the whole ranking, 0 when none is there (MRR is its
// mean over queries).
//
// Worked: ranked [B A C], judged {A: 2, C: 1}: 1/2.
func ReciprocalRank(ranked []string, judged map[string]int) float64 {
	for i, id := range ranked {
		if judged[id] >= 1 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// AveragePrecision is trec_eval's map for one query: the precision at the
// rank of each relevant node found, in the whole ranking, summed and
// divided by R, so a relevant node never found counts 0 (MAP is its mean
// over queries).
//
// Worked: ranked [A B C], judged {A: 2, C: 1, D: 1}: (1/1 + 2/3) / 3 =
// 0.55556.
func AveragePrecision(ranked []string, judged map[string]int) float64 {
	r := numRelevant(judged)
	if r == 0 {
		return 0
	}
	found, sum := 0, 0.0
	for i, id := range ranked {
		if judged[id] >= 1 {
			found++
			sum += float64(found) / float64(i+1)
		}
	}
	return sum / float64(r)
}

// relevantIn counts the relevant nodes among the first k of ranked.
func relevantIn(ranked []string, judged map[string]int, k int) int {
	n := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if judged[id] >= 1 {
			n++
		}
	}
	return n
}

// numRelevant is R: the judged nodes of grade 1 or more.
func numRelevant(judged map[string]int) int {
	n := 0
	for _, g := range judged {
		if g >= 1 {
			n++
		}
	}
	return n
}

// Kind is one of the metrics.
type Kind string

// The metrics, in the order a report lists them.
const (
	KindPrecision Kind = "P"
	KindRecall    Kind = "recall"
	KindNDCG      Kind = "nDCG"
	KindMRR       Kind = "MRR"
	KindMAP       Kind = "MAP"
)

// Metric is a metric with its cut-off (K is 0 for MRR and MAP).
type Metric struct {
	Kind Kind
	K    int
}

// Name is the metric as reports write it: "P@5", "recall@10", "nDCG@5",
// "MRR", "MAP".
func (m Metric) Name() string {
	if m.K == 0 {
		return string(m.Kind)
	}
	return string(m.Kind) + "@" + strconv.Itoa(m.K)
}

// TrecName is trec_eval's name of the metric: P_5, recall_10, ndcg_cut_5,
// recip_rank, map.
func (m Metric) TrecName() string {
	switch m.Kind {
	case KindPrecision:
		return "P_" + strconv.Itoa(m.K)
	case KindRecall:
		return "recall_" + strconv.Itoa(m.K)
	case KindNDCG:
		return "ndcg_cut_" + strconv.Itoa(m.K)
	case KindMRR:
		return "recip_rank"
	}
	return "map"
}

// Metrics are the metrics of a report at cut-offs ks: P, recall and nDCG
// at each k in the order given, then MRR and MAP.
func Metrics(ks []int) []Metric {
	var out []Metric
	for _, kind := range []Kind{KindPrecision, KindRecall, KindNDCG} {
		for _, k := range ks {
			out = append(out, Metric{kind, k})
		}
	}
	return append(out, Metric{Kind: KindMRR}, Metric{Kind: KindMAP})
}

// Value is metric m of ranked against judged.
func (m Metric) Value(ranked []string, judged map[string]int) float64 {
	switch m.Kind {
	case KindPrecision:
		return Precision(ranked, judged, m.K)
	case KindRecall:
		return Recall(ranked, judged, m.K)
	case KindNDCG:
		return NDCG(ranked, judged, m.K)
	case KindMRR:
		return ReciprocalRank(ranked, judged)
	}
	return AveragePrecision(ranked, judged)
}
