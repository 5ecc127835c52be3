// Package signals reranks any retriever's ranking by the
// multi-signal score (docs/RETRIEVERS.md, "Reranking by signals"):
//
//	final = w_sem × sem + w_time × recency + w_sal × salience
//
// sem is spreading activation's semantic similarity (retriever.Similarity:
// the cosine of the query vector with the node's embedding, else R for a
// seed, else 0); recency = exp(−λ × days) since the node's updated_at, else
// last_accessed, else created_at; salience is the node's salience clamped
// to [0, 1]. A missing value counts 0 and is flagged. The hits are ranked
// by final (retriever.Rank), then cut by per-label caps.
//
// It is not a retriever: a pure function of a ranking, its hits' node
// properties and the parameters, reading no graph and no clock. It lives
// under retriever/ beside fusion, sharing only package retriever
// (docs/ARCHITECTURE.md).
package signals

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/memoria-graph/memoria/retriever"
)

// Name is the rerank's name in flags and rankings (--rerank signals).
const Name = "signals"

// timeKeys are the properties recency reads, the first readable one
// winning.
var timeKeys = []string{"updated_at", "last_accessed", "created_at"}

// Where a signal came from when its value is missing (counted 0).
const fromMissing = "missing"

// detailKeys are the keys the rerank puts first in a hit's detail, in
// order.
var detailKeys = []string{"own_score", "own_rank", "sem", "sem_from", "recency", "recency_from", "days", "salience",
	"salience_from", "missing", "notes"}

// signal values of one hit, with where each came from.
type values struct {
	sem, recency, salience    float64
	semFrom, recFrom, salFrom string
	days                      any // float64, or nil when recency is missing
	missing                   []string
	notes                     []string
}

// Rerank scores each hit of r by the signals (Params), ranks them by that
// score and then node id (retriever.Rank), drops the hits beyond the
// per-label caps, and numbers the rest 1, 2, … . r is not changed.
//
// A reranked hit's Score is final; its Terms the three weighted signals
// in order (w_sem×sem, w_time×recency, w_sal×salience), which add up to
// it (TermsAdd), added in that order; its Detail starts with the
// retriever's own score and rank and each signal's value and source
// (detailKeys), followed by the retriever's own detail. Labels, seed,
// origin, route, feeders and contradicting stay the retriever's. The
// ranking keeps the retriever's name; its Params gain the rerank's
// (Params.Fields), its Stats the rerank's counts. A ranking already
// reranked, or whose hits' detail holds one of the rerank's keys, is an
// error.
//
// Caps: hits are walked in rank order; one is dropped when any of its
// labels (each counted once) has a cap that the hits kept before it have
// reached; a kept hit counts against every capped label it has, a dropped
// one against none.
func Rerank(r retriever.Ranking, p Params) (retriever.Ranking, error) {
	if err := p.Validate(); err != nil {
		return retriever.Ranking{}, err
	}
	if _, ok := r.Params.Get("rerank"); ok {
		return retriever.Ranking{}, fmt.Errorf("the %s ranking is already reranked", strconv.Quote(r.Retriever))
	}
	seedR := map[string]float64{}
	for _, s := range r.Seeds {
		if _, dup := seedR[s.NodeID]; s.Found && !dup {
			seedR[s.NodeID] = s.Score
		}
	}
	hits := make([]retriever.Hit, len(r.Hits))
	var missSem, missRec, missSal, notes int
	for i, h := range r.Hits {
		for _, k := range detailKeys {
			if _, clash := h.Detail.Get(k); clash {
				return retriever.Ranking{}, fmt.Errorf("hit %s of the %s ranking already has a detail %s", strconv.Quote(h.NodeID),
					strconv.Quote(r.Retriever), strconv.Quote(k))
			}
		}
		rr, isSeed := seedR[h.NodeID]
		v := signalsOf(h.Node.Properties, p, isSeed, rr)
		// Each term rounded on its own (the conversions forbid a fused
		// multiply-add), then added in a fixed order.
		tSem := float64(p.Weights.Sem * v.sem)
		tTime := float64(p.Weights.Time * v.recency)
		tSal := float64(p.Weights.Salience * v.salience)
		final := tSem + tTime
		final += tSal
		n := h
		n.Score = final
		n.TermsAdd = true
		n.Terms = []retriever.Term{{Name: "w_sem×sem", Value: tSem}, {Name: "w_time×recency", Value: tTime}, {Name: "w_sal×salience", Value: tSal}}
		n.Detail = append(retriever.Fields{
			{Name: "own_score", Value: h.Score},
			{Name: "own_rank", Value: h.Rank},
			{Name: "sem", Value: v.sem},
			{Name: "sem_from", Value: v.semFrom},
			{Name: "recency", Value: v.recency},
			{Name: "recency_from", Value: v.recFrom},
			{Name: "days", Value: v.days},
			{Name: "salience", Value: v.salience},
			{Name: "salience_from", Value: v.salFrom},
			{Name: "missing", Value: v.missing},
			{Name: "notes", Value: v.notes},
		}, h.Detail...)
		hits[i] = n
		for _, m := range v.missing {
			switch m {
			case "sem":
				missSem++
			case "recency":
				missRec++
			case "salience":
				missSal++
			}
		}
		if len(v.notes) > 0 {
			notes++
		}
	}
	hits, _ = retriever.Rank(hits, 0)
	kept := capLabels(hits, p.PerLabelTop)
	for i := range kept {
		kept[i].Rank = i + 1
	}
	out := r
	out.Hits = kept
	out.Params = append(slices.Clone(r.Params), p.Fields()...)
	out.Stats = append(slices.Clone(r.Stats),
		retriever.Field{Name: "rerank_hits_in", Value: len(r.Hits)},
		retriever.Field{Name: "rerank_capped", Value: len(hits) - len(kept)},
		retriever.Field{Name: "rerank_missing_sem", Value: missSem},
		retriever.Field{Name: "rerank_missing_recency", Value: missRec},
		retriever.Field{Name: "rerank_missing_salience", Value: missSal},
		retriever.Field{Name: "rerank_hits_with_notes", Value: notes},
	)
	return out, nil
}

// capLabels keeps the hits, in order, that the caps allow (Rerank).
func capLabels(hits []retriever.Hit, caps []Cap) []retriever.Hit {
	if len(caps) == 0 {
		return hits
	}
	limit := make(map[string]int, len(caps))
	for _, c := range caps {
		limit[c.Label] = c.N
	}
	count := map[string]int{}
	kept := hits[:0:0]
	for _, h := range hits {
		var capped []string
		full := false
		for _, l := range h.Labels {
			n, ok := limit[l]
			if !ok || slices.Contains(capped, l) {
				continue
			}
			capped = append(capped, l)
			full = full || count[l] >= n
		}
		if full {
			continue
		}
		for _, l := range capped {
			count[l]++
		}
		kept = append(kept, h)
	}
	return kept
}

// signalsOf reads the three signals of a node from its properties.
func signalsOf(props map[string]any, p Params, isSeed bool, r float64) values {
	var v values
	var emb any
	if x, ok := props["embedding"]; ok && x != nil && p.QueryVector != nil {
		emb = x
		if _, usable := retriever.Cosine(p.QueryVector, x); !usable {
			v.notes = append(v.notes, fmt.Sprintf("embedding: not a list of %d finite numbers, not all zero", len(p.QueryVector)))
		}
	}
	v.sem, v.semFrom = retriever.Similarity(p.QueryVector, emb, isSeed, r)
	if v.semFrom == retriever.SimilarityFromNone {
		v.missing = append(v.missing, "sem")
	}

	v.recFrom, v.days = fromMissing, nil
	for _, k := range timeKeys {
		x, ok := props[k]
		if !ok || x == nil {
			continue
		}
		t, err := Timestamp(x)
		if err != nil {
			v.notes = append(v.notes, k+" "+show(x)+": "+err.Error())
			continue
		}
		days, future := Days(p.Now, t)
		if future {
			v.notes = append(v.notes, k+" "+show(x)+": after now, counted 0 days")
		}
		v.recFrom, v.days = k, days
		v.recency = math.Exp(-p.Lambda * days)
		break
	}
	if v.recFrom == fromMissing {
		v.missing = append(v.missing, "recency")
	}

	v.salFrom = fromMissing
	if x, ok := props["salience"]; ok && x != nil {
		if s, err := salience(x); err != nil {
			v.notes = append(v.notes, "salience "+show(x)+": "+err.Error())
		} else {
			v.salFrom = "salience"
			v.salience = min(1, max(0, s))
			if v.salience != s {
				v.notes = append(v.notes, "salience "+show(x)+": clamped to "+strconv.FormatFloat(v.salience, 'g', -1, 64))
			}
		}
	}
	if v.salFrom == fromMissing {
		v.missing = append(v.missing, "salience")
	}
	if v.missing == nil {
		v.missing = []string{}
	}
	if v.notes == nil {
		v.notes = []string{}
	}
	return v
}

// salience reads a salience property: a number (retriever.Number).
func salience(x any) (float64, error) {
	if s, ok := retriever.Number(x); ok {
		return s, nil
	}
	if _, isFloat := x.(float64); isFloat {
		return 0, errors.New("not a finite number")
	}
	return 0, fmt.Errorf("a %T, not a number", x)
}

// maxShown is how many bytes of a property value a note quotes.
const maxShown = 40

// show is a property value as a note quotes it: a string quoted (cut to
// maxShown bytes, on a rune boundary, with …), anything else as Go prints
// it, cut likewise. The note is graph text: front ends escape it.
func show(x any) string {
	s, isString := x.(string)
	if !isString {
		s = fmt.Sprint(x)
	}
	cut := false
	if len(s) > maxShown {
		n := maxShown
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	if isString {
		s = strconv.Quote(s)
	}
	if cut {
		s += "…"
	}
	return s
}
