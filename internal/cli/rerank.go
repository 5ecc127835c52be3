package cli

import (
	"flag"
	"slices"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/internal/textsafe"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/signals"
)

// rerankFlagNames are the flags of the signals rerank besides --rerank:
// refused unless --rerank signals.
var rerankFlagNames = []string{"signal-weights", "recency-lambda", "now", "per-label-top"}

// rerankShared are the flags of some retriever that --rerank signals
// takes too, whatever the retriever: the query vector (spreading's),
// which the rerank's sem compares with.
var rerankShared = []string{"query-vector"}

// rerankFlags are --rerank and the signals rerank's parameters
// (docs/RETRIEVERS.md, "Reranking by signals"), for explore and compare.
type rerankFlags struct {
	mode string // --rerank: "none" or signals.Name
	now  string // --now as given; "" for the clock
	p    signals.Params
}

func (f *rerankFlags) register(fs *flag.FlagSet) {
	f.p = signals.DefaultParams()
	fs.StringVar(&f.mode, "rerank", "none", "how to rerank each ranking, a `mode`: none or signals (the multi-signal w_sem × sem + w_time × recency +\n"+
		"w_sal × salience, docs/RETRIEVERS.md)")
	fs.Func("signal-weights", "with --rerank signals: the weights `w_sem,w_time,w_sal`, each in [0, 1], summing to 1\n"+
		"(default 0.3,0.3,0.4)", func(v string) error {
		v, err := listText(v, "weight", false)
		if err != nil {
			return err
		}
		w, err := signals.ParseWeights(v)
		f.p.Weights = w
		return err
	})
	fs.Float64Var(&f.p.Lambda, "recency-lambda", f.p.Lambda, "with --rerank signals: recency = exp(−`λ` × days since the node's\n"+
		"updated_at, else last_accessed, else created_at), at least 0")
	if fs.Lookup("now") == nil { // the source flags' --now (schema.go) otherwise
		fs.StringVar(&f.now, "now", "", "with --rerank signals: the `time` days are counted to, RFC 3339 (default the clock)")
	}
	fs.Func("per-label-top", "with --rerank signals: after ranking, keep at most N hits with each label, `Label=N,...` (N ≥ 1)", func(v string) error {
		v, err := listText(v, "Label=N", true)
		if err != nil {
			return err
		}
		caps, err := signals.ParseCaps(v)
		f.p.PerLabelTop = caps
		return err
	})
}

// on says whether the rerank runs.
func (f *rerankFlags) on() bool { return f.mode == signals.Name }

// check refuses an unknown --rerank, the rerank's flags without --rerank
// signals, a negative λ and a --now that is not RFC 3339, and sets the
// rerank's query vector (the one --query-vector read, nil without) and
// now (the clock's when --now is not given).
func (f *rerankFlags) check(fs *flag.FlagSet, cmd string, queryVector []float64) error {
	if f.mode != "none" && f.mode != signals.Name {
		return usagef("%s: unknown --rerank %s (want none or signals)", cmd, textsafe.Quote(f.mode))
	}
	if v, ok := schemaNow(fs); ok {
		f.now = v
	}
	graphiti := false
	if fl := fs.Lookup("schema"); fl != nil && fl.Value.String() == graph.SchemaGraphiti {
		graphiti = true // --now is the time invalid_at is judged against too
	}
	var err error
	fs.Visit(func(fl *flag.Flag) {
		if err == nil && !f.on() && slices.Contains(rerankFlagNames, fl.Name) && !(fl.Name == "now" && graphiti) {
			err = usagef("%s: --%s applies to --rerank signals", cmd, fl.Name)
		}
	})
	if err != nil || !f.on() {
		return err
	}
	if e := signals.ValidateLambda(f.p.Lambda); e != nil {
		return usagef("%s: --recency-lambda: %v", cmd, e)
	}
	f.p.Now = time.Now()
	if f.now != "" {
		t, e := time.Parse(time.RFC3339, f.now)
		if e != nil {
			return usagef("%s: --now %s is not an RFC 3339 time (like 2026-03-01T00:00:00Z)", cmd, textsafe.Quote(f.now))
		}
		f.p.Now = t
	}
	f.p.QueryVector = queryVector
	if e := f.p.Validate(); e != nil {
		return usageError{eachLine(cmd+": --rerank signals: ", e.Error())}
	}
	return nil
}

// sharedWith are the flags of other retrievers that the flags set on fs
// make shared: rerankShared with --rerank signals, the query vector with
// --query (the gather's vector matcher), none otherwise.
func sharedWith(fs *flag.FlagSet) []string {
	if f := fs.Lookup("rerank"); f != nil && f.Value.String() == signals.Name {
		return rerankShared
	}
	if isSet(fs, "query") { // the gather's vector matcher takes it
		return []string{"query-vector"}
	}
	return nil
}

// apply reranks r when the rerank is on, and returns it unchanged
// otherwise.
func (f *rerankFlags) apply(r retriever.Ranking) (retriever.Ranking, error) {
	if f == nil || !f.on() {
		return r, nil
	}
	return signals.Rerank(r, f.p)
}
