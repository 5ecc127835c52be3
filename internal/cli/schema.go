package cli

import (
	"flag"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/internal/textsafe"
)

// schemaFlags map a graph of another shape onto memoria's
// (graph.Schema, docs/RETRIEVERS.md "Other schemas"): a preset, then
// flags that override it one name at a time. --traverse-types is the
// mapping's traversed types; --rel-types is, as before, the relationship
// filter (relfilter.go).
type schemaFlags struct {
	fs *flag.FlagSet

	preset         string
	idProperty     string
	traverseTypes  string
	weightProperty string
	defaultWeight  string
	tagsProperty   string
	tagsSeparator  string
	nodeLabel      string
	nodeWhere      string
	includeInvalid bool
	now            string
}

// schemaFlagNames are the mapping's flags besides --schema.
var schemaFlagNames = []string{"id-property", "traverse-types", "weight-property", "default-weight", "tags-property",
	"tags-separator", "node-label", "node-where"}

func (f *schemaFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.preset, "schema", graph.SchemaMemoria, "the graph's `shape`: memoria, lightrag, graphiti or graphrag (a preset of the flags below;\n"+
		"docs/RETRIEVERS.md \"Other schemas\"), on files, the demo graph and Neo4j")
	fs.StringVar(&f.idProperty, "id-property", "", "the node `property` that keys a node (memoria: id, lightrag: entity_id, graphiti: uuid,\n"+
		"graphrag: title)")
	fs.StringVar(&f.traverseTypes, "traverse-types", "", "the comma-separated relationship `types` the retrievers traverse as RELATES,\n"+
		"degree counting these only (memoria and graphrag: RELATES, lightrag: DIRECTED, graphiti: RELATES_TO); not --rel-types, the filter")
	fs.StringVar(&f.weightProperty, "weight-property", "", "the relationship `property` holding the weight ('' for none; memoria, lightrag and graphrag: weight)")
	fs.StringVar(&f.defaultWeight, "default-weight", "", "the `weight` of a traversed relationship without one, at least 0 (lightrag, graphiti and graphrag: 1;\n"+
		"memoria: each retriever's own rule)")
	fs.StringVar(&f.tagsProperty, "tags-property", "", "the relationship `property` holding the tags ('' for none; memoria: tags, lightrag: keywords)")
	fs.StringVar(&f.tagsSeparator, "tags-separator", "", "the `separator` splitting a tags string into tags (lightrag: ,); a list stays a list")
	fs.StringVar(&f.nodeLabel, "node-label", "", "keep only nodes with this `label` (lightrag: base, graphiti: Entity)")
	fs.StringVar(&f.nodeWhere, "node-where", "", "keep only nodes whose property KEY holds the string VALUE, given as `KEY=VALUE`\n"+
		"(Graphiti's group_id=ID; '' for every node, the default)")
	fs.BoolVar(&f.includeInvalid, "include-invalid", false, "with --schema graphiti: keep the relationships whose invalid_at is past")
	fs.StringVar(&f.now, "now", "", "the `time`, RFC 3339 (default the clock), that --schema graphiti judges invalid_at against and\n"+
		"--rerank signals counts days to")
}

// schema resolves the flags into a mapping: the preset, then each flag
// given. Every bad value is a usage error naming its flag.
func (f *schemaFlags) schema() (graph.Schema, error) {
	s, ok := graph.Preset(f.preset)
	if !ok {
		return s, usagef("--schema %s: want %s", textsafe.Quote(f.preset), strings.Join(graph.SchemaPresets, ", "))
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, name := range schemaFlagNames {
		if !set[name] {
			continue
		}
		s.Customize("--" + name)
		switch name {
		case "id-property":
			if f.idProperty == "" {
				return s, usagef("--id-property: empty: a node needs an id property")
			}
			s.IDProperty = f.idProperty
		case "traverse-types":
			types, err := splitTypes(f.traverseTypes)
			if err != nil {
				return s, usagef("--traverse-types %s: %v", textsafe.Quote(f.traverseTypes), err)
			}
			s.Traverse = types
		case "weight-property":
			s.WeightProperty = f.weightProperty
		case "default-weight":
			w, err := strconv.ParseFloat(strings.TrimSpace(f.defaultWeight), 64)
			// A negative weight passed here and failed later, exit 1,
			// naming the first relationship it reached (personalized
			// PageRank needs weights of at least 0).
			if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
				return s, usagef("--default-weight %s: want a finite number of at least 0", textsafe.Quote(f.defaultWeight))
			}
			s.DefaultWeight = &w
		case "tags-property":
			s.TagsProperty = f.tagsProperty
		case "tags-separator":
			s.TagsSeparator = f.tagsSeparator
		case "node-label":
			s.NodeLabel = f.nodeLabel
		case "node-where":
			if f.nodeWhere == "" {
				s.NodeWhereKey, s.NodeWhereValue = "", "" // every node
				continue
			}
			k, v, ok := strings.Cut(f.nodeWhere, "=")
			if !ok || k == "" {
				return s, usagef("--node-where %s: want KEY=VALUE, a node property and the string it holds", textsafe.Quote(f.nodeWhere))
			}
			s.NodeWhereKey, s.NodeWhereValue = k, v
		}
	}
	if err := s.Validate(); err != nil {
		return s, usagef("--schema %s: %v", s.Name, err)
	}
	if s.IsDefault() && s.Name != graph.SchemaMemoria {
		s.Name = graph.SchemaMemoria // flags that spell memoria's own shape
	}
	if set["include-invalid"] && s.InvalidAt == "" {
		return s, usagef("--include-invalid applies to --schema graphiti")
	}
	s.IncludeInvalid = f.includeInvalid
	if set["now"] && s.InvalidAt == "" && f.fs.Lookup("rerank") == nil {
		return s, usagef("--now applies to --schema graphiti")
	}
	if s.InvalidAt != "" {
		s.Now = time.Now().UTC() // Neo4j refuses Go's zone name "Local"
		if f.now != "" {
			t, err := time.Parse(time.RFC3339, f.now)
			if err != nil {
				return s, usagef("--now %s is not an RFC 3339 time (like 2026-03-01T00:00:00Z)", textsafe.Quote(f.now))
			}
			s.Now = t
		}
	}
	return s, nil
}

// schemaOf is the mapping src is read by (memoria's own shape for a
// source that has none).
func schemaOf(src graph.Source) graph.Schema {
	switch s := src.(type) {
	case *inmem.Graph:
		return s.Schema()
	case *neo4jdb.Source:
		return s.Schema()
	}
	return graph.MemoriaSchema()
}

// schemaNow is the --now the rerank reads when the source flags own it.
func schemaNow(fs *flag.FlagSet) (string, bool) {
	fl := fs.Lookup("now")
	if fl == nil {
		return "", false
	}
	return fl.Value.String(), true
}
