package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/memoria-graph/memoria/render"
)

// checkRow is one hop as the check query returns it.
type checkRow struct {
	hop          int64
	from, to     string
	t, memoriaT  float64
	same         bool
	degree       int64
	tagSim, w, r float64
}

// runCheck runs a check query and reads its rows.
func runCheck(t *testing.T, d neo4j.DriverWithContext, query string, params map[string]any) []checkRow {
	t.Helper()
	res, err := neo4j.ExecuteQuery(context.Background(), d, query, params, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithReadersRouting())
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	var out []checkRow
	for _, rec := range res.Records {
		m := rec.AsMap()
		out = append(out, checkRow{hop: m["hop"].(int64), from: m["from_id"].(string), to: m["to_id"].(string),
			t: m["T"].(float64), memoriaT: m["memoria_T"].(float64), same: m["same"].(bool),
			degree: m["d"].(int64), tagSim: m["tag_sim"].(float64), w: m["w"].(float64), r: m["R"].(float64)})
	}
	return out
}

// pasteForm splits a Browser or cypher-shell script into its parameter
// maps (the line after cmd, evaluated by the server with RETURN, as the
// tools evaluate it) and its queries (the lines up to the ";").
func pasteForm(t *testing.T, d neo4j.DriverWithContext, script, cmd string) []pastedQuery {
	t.Helper()
	var out []pastedQuery
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		lit, ok := strings.CutPrefix(lines[i], cmd)
		if !ok {
			continue
		}
		res, err := neo4j.ExecuteQuery(context.Background(), d, "RETURN "+lit+" AS params", nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatalf("the %s map is not valid Cypher: %v\n%s", cmd, err, lines[i])
		}
		var q []string
		for i++; i < len(lines); i++ {
			q = append(q, lines[i])
			if strings.HasSuffix(lines[i], ";") {
				break
			}
		}
		p, _ := res.Records[0].Values[0].(map[string]any)
		out = append(out, pastedQuery{params: p, query: strings.TrimSuffix(strings.Join(q, "\n"), ";")})
	}
	return out
}

// TestCheckQueriesAgreeOnTheServer: memoria's numbers, recomputed by Neo4j
// from the raw properties, in every copy form and from both engines.
//
// Scenario A (docs/DEMO_GRAPH.md): the demo graph loaded into Neo4j; seed
// N2006 with R 0.85, the four demo tags, default thresholds; explored from
// the embedded engine and from Neo4j, printed with --format check in the
// Browser, cypher-shell and driver forms, and each query run on the server
// as the tool would (the parameter map evaluated by the server; the driver
// form's JSON passed as it is).
// Expected: the three paths N2006→N2003→N2001→N2010, N2006→N2004→N2008
// and N2006→N2005 give 3 + 2 + 1 = 6 hop rows per form and engine, each
// with same = true (the server's T is memoria's, to the bit: both compute
// (R × w / √d) × tag_sim left to right, docs/ALGORITHM.md rule 1). By hand,
// the first hop: R = 0.85, w = 0.82, d(N2006) = 4 (its MENTIONS edge does
// not count), tag_sim = 0.15 + 0.85 × 1/6 = 0.291667, T = 0.85 × 0.82 / 2 ×
// 0.291667 = 0.101646 (docs/ALGORITHM.md's example).
func TestCheckQueriesAgreeOnTheServer(t *testing.T) {
	srv, d := freshServer(t)
	if code, _, errs := runIn(t, serverSession(srv), "load", "../../testdata/demo.jsonl", "--uri", srv.URI); code != 0 {
		t.Fatalf("load: exit %d: %s", code, errs)
	}
	for _, engine := range []struct {
		name   string
		source []string
	}{{"memory engine", nil}, {"Neo4j engine", []string{"--uri", srv.URI}}} {
		for _, form := range render.CypherForms {
			args := append([]string{"explore", "--seed", "N2006=0.85", "--tags", "demand_forecasting,stockout,safety_stock,inventory_policy",
				"--format", "check", "--cypher-form", string(form)}, engine.source...)
			code, script, errs := runIn(t, serverSession(srv), args...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", engine.name, form, code, errs)
			}
			var qs []pastedQuery
			switch form {
			case render.FormBrowser:
				qs = pasteForm(t, d, script, ":params ")
			case render.FormShell:
				qs = pasteForm(t, d, script, ":param ")
			case render.FormDriver:
				for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
					var dq render.DriverQuery
					if err := json.Unmarshal([]byte(line), &dq); err != nil {
						t.Fatalf("driver form: %v\n%s", err, line)
					}
					qs = append(qs, pastedQuery{params: dq.Parameters, query: dq.Query})
				}
			}
			if len(qs) != 3 {
				t.Fatalf("%s %s: %d queries, want 3 (one per path)\n%s", engine.name, form, len(qs), script)
			}
			hops := 0
			for _, q := range qs {
				for _, row := range runCheck(t, d, q.query, q.params) {
					hops++
					if !row.same || row.t != row.memoriaT {
						t.Errorf("%s %s: hop %d %s→%s: server T %v, memoria %v", engine.name, form, row.hop, row.from, row.to, row.t, row.memoriaT)
					}
					if row.hop == 1 && row.to == "N2003" && (row.degree != 4 || row.w != 0.82 || row.r != 0.85 ||
						row.tagSim < 0.2916 || row.tagSim > 0.2917 || row.t < 0.10164 || row.t > 0.10165) {
						t.Errorf("%s %s: first hop %+v, want d 4, w 0.82, R 0.85, tag_sim 0.29167, T 0.10165", engine.name, form, row)
					}
				}
			}
			if hops != 6 {
				t.Errorf("%s %s: %d hop rows, want 6", engine.name, form, hops)
			}
		}
	}
}
