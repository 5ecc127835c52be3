package graphrag

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
)

// The columns each table is read by, beyond those it needs.
var (
	entityProps    = map[string]want{"type": wantString, "description": wantScalar, "frequency": wantScalar, "degree": wantScalar, "human_readable_id": wantScalar}
	communityProps = map[string]want{"community": wantScalar, "level": wantScalar, "parent": wantScalar, "size": wantScalar, "human_readable_id": wantScalar}
	textUnitProps  = map[string]want{"text": wantScalar, "n_tokens": wantScalar, "human_readable_id": wantScalar}
)

// decoder is one folder being read.
type decoder struct {
	opt    Options
	check  *apoc.Checker
	onNode func(apoc.Node) error
	onRel  func(apoc.Relationship) error
	sum    Summary
	tables []*table
	// titles are the nodes by title, entityIDs the entities by id (when
	// communities or text units link to them); nodeIDs are the nodes'
	// internal ids, their numbers in the order made.
	titles    map[string]int32
	entityIDs map[string]int32
	nodeIDs   []string
	// rels is the next link's internal id (after the relationships').
	rels int64
}

// Decode reads the folder's tables and hands each node and relationship,
// checked by rules (apoc.Checker), to onNode and onRel, as apoc.DecodeRules
// does with an APOC file; read is told the bytes read so far (nil for
// none). Every table is opened and its columns checked before anything is
// handed over. After the first problem it calls neither function again.
func Decode(f Folder, rules apoc.Rules, opt Options, onNode func(apoc.Node) error, onRel func(apoc.Relationship) error, read func(int64)) (Summary, apoc.Report, error) {
	c := &counter{read: read}
	d := &decoder{opt: opt, check: apoc.NewChecker(rules), onNode: onNode, onRel: onRel, titles: map[string]int32{}}
	defer func() {
		for _, t := range d.tables {
			t.f.Close()
		}
	}()
	paths := []string{f.Entities, f.Relationships, f.Communities, f.TextUnits}
	if f.Entities == "" || f.Relationships == "" {
		return Summary{}, apoc.Report{}, fmt.Errorf("%s: no entities.parquet and relationships.parquet (nor create_final_entities.parquet and create_final_relationships.parquet)", f.Dir)
	}
	tabs := make([]*table, 4)
	base := 0
	for i, p := range paths {
		if p == "" {
			continue
		}
		t, err := openTable(p, c)
		if err != nil {
			return Summary{}, apoc.Report{}, err
		}
		t.base = base
		base += int(t.pf.NumRows())
		if base >= math.MaxInt32 {
			return Summary{}, apoc.Report{}, fmt.Errorf("%s: more than %d rows in all, more than memoria reads", f.Dir, math.MaxInt32-1)
		}
		tabs[i] = t
		d.tables = append(d.tables, t)
	}
	links := tabs[2] != nil || tabs[3] != nil
	ent, rel, com, txt, err := d.columns(tabs, links)
	if err != nil {
		return Summary{}, apoc.Report{}, err
	}
	if links {
		d.entityIDs = map[string]int32{}
	}
	d.rels = tabs[1].pf.NumRows()
	err = d.entities(tabs[0], ent)
	if err == nil {
		err = d.relationships(tabs[1], rel)
	}
	if err == nil && com != nil {
		err = d.linked(tabs[2], com, CommunityLabel, "title", InCommunity, false)
	}
	if err == nil && txt != nil {
		err = d.linked(tabs[3], txt, TextUnitLabel, "id", Mentions, true)
	}
	if errors.Is(err, errStop) {
		return Summary{}, apoc.Report{}, d.translate(d.check.Errors())
	}
	if err != nil {
		return Summary{}, apoc.Report{}, err
	}
	if len(d.nodeIDs) == 0 {
		return Summary{}, apoc.Report{}, fmt.Errorf("%s and %s hold no rows: an empty graph", tabs[0].name, tabs[1].name)
	}
	if read != nil {
		read(c.n)
	}
	rep, err := d.check.Finish()
	if err != nil {
		return Summary{}, apoc.Report{}, d.translate(err)
	}
	return d.sum, rep, nil
}

// columns checks every table's columns before anything is read.
func (d *decoder) columns(tabs []*table, links bool) (ent, rel, com, txt map[string]*column, err error) {
	need := map[string]want{"title": wantString}
	if links {
		need["id"] = wantString
	}
	if ent, err = tabs[0].columns(need, entityProps); err != nil {
		return
	}
	need = map[string]want{"source": wantString, "target": wantString}
	if d.opt.Weight != "" {
		need[d.opt.Weight] = wantNumber
	}
	if rel, err = tabs[1].columns(need, map[string]want{"description": wantScalar}); err != nil {
		return
	}
	if tabs[2] != nil {
		if com, err = tabs[2].columns(map[string]want{"title": wantString, "entity_ids": wantStrings}, communityProps); err != nil {
			return
		}
	}
	if tabs[3] != nil {
		txt, err = tabs[3].columns(map[string]want{"id": wantString, "entity_ids": wantStrings}, textUnitProps)
	}
	return
}

// nodeID is node k's internal id, made when k is new.
func (d *decoder) nodeID(k int32) string {
	for int(k) >= len(d.nodeIDs) {
		d.nodeIDs = append(d.nodeIDs, strconv.Itoa(len(d.nodeIDs)))
	}
	return d.nodeIDs[k]
}

// node hands over a new node, read at pos.
func (d *decoder) node(pos int, labels []string, props map[string]any) (int32, error) {
	k := int32(len(d.nodeIDs))
	n := apoc.Node{InternalID: d.nodeID(k), Labels: labels, Properties: props}
	if d.check.Node(pos, &n) && d.check.OK() {
		if err := d.onNode(n); err != nil {
			return k, err
		}
	}
	if d.check.Full() {
		return k, errStop
	}
	return k, nil
}

// rel hands over a relationship, read at pos.
func (d *decoder) rel(pos int, id, typ string, start, end int32, props map[string]any) error {
	r := apoc.Relationship{InternalID: id, Type: typ, Start: d.nodeIDs[start], End: d.nodeIDs[end], Properties: props}
	if d.check.Rel(pos, &r) && d.check.OK() {
		if err := d.onRel(r); err != nil {
			return err
		}
	}
	if d.check.Full() {
		return errStop
	}
	return nil
}

// key reads a row's key (a title or id): a string neither null nor empty.
func (t *table) key(row int64, c *column) (string, error) {
	s, ok, err := c.str()
	switch {
	case err != nil:
		return "", t.cellError(row, c, err)
	case !ok:
		return "", &rowError{t.name, row, fmt.Sprintf("%s is null", c.name)}
	case s == "":
		return "", &rowError{t.name, row, fmt.Sprintf("%s is empty", c.name)}
	}
	return s, nil
}

// props reads a row's property columns into props (a null cell is left
// out).
func (t *table) props(row int64, cols map[string]*column, names map[string]want, props map[string]any) error {
	for name := range names {
		if err := t.putCell(row, cols[name], props); err != nil {
			return err
		}
	}
	return nil
}

// putCell reads column c's cell of row into props under c's name (a null
// cell, or no column, is left out).
func (t *table) putCell(row int64, c *column, props map[string]any) error {
	if c == nil {
		return nil
	}
	v, err := c.value()
	if err != nil {
		return t.cellError(row, c, err)
	}
	if v != nil {
		props[c.name] = v
	}
	return nil
}

// pos is the checker's position of a table's row.
func (t *table) pos(row int64) int { return t.base + int(row) + 1 }

// entities reads the entities table.
func (d *decoder) entities(t *table, cols map[string]*column) error {
	title, id := cols["title"], cols["id"]
	return t.rows(cols, func(row int64) error {
		s, err := t.key(row, title)
		if err != nil {
			return err
		}
		if first, dup := d.titles[s]; dup {
			return &rowError{t.name, row, fmt.Sprintf("the title %s again (first at row %d): a title keys an entity", quoteShort(s), first)}
		}
		props := make(map[string]any, 6)
		props["title"] = s
		if err := t.props(row, cols, entityProps, props); err != nil {
			return err
		}
		var labels []string
		if ty, ok := props["type"].(string); ok && ty != "" {
			labels = []string{ty}
		} else {
			labels = []string{}
		}
		k, err := d.node(t.pos(row), labels, props)
		d.titles[s] = k
		d.sum.Entities++
		if err != nil {
			return t.wrap(row, err)
		}
		if id != nil {
			eid, err := t.key(row, id)
			if err != nil {
				return err
			}
			if _, dup := d.entityIDs[eid]; dup {
				return &rowError{t.name, row, fmt.Sprintf("the id %s again: an id names one entity", quoteShort(eid))}
			}
			d.entityIDs[eid] = k
		}
		return nil
	})
}

// wrap names the row of an error the engine returned (errStop passes).
func (t *table) wrap(row int64, err error) error {
	var re *rowError
	if err == nil || errors.Is(err, errStop) || errors.As(err, &re) {
		return err
	}
	return &rowError{t.name, row, err.Error()}
}

// end is the node of a relationship's end: the entity of that title, or
// a node of that title (made when first named).
func (d *decoder) end(t *table, row int64, c *column) (int32, error) {
	s, err := t.key(row, c)
	if err != nil {
		return 0, err
	}
	if k, ok := d.titles[s]; ok {
		return k, nil
	}
	k, err := d.node(t.pos(row), []string{}, map[string]any{"title": s})
	d.titles[s] = k
	d.sum.MissingTitles++
	return k, err
}

// relationships reads the relationships table.
func (d *decoder) relationships(t *table, cols map[string]*column) error {
	src, dst, weight, desc := cols["source"], cols["target"], cols[d.opt.Weight], cols["description"]
	if desc == weight {
		desc = nil // the weight column is the description's: read once a row
	}
	return t.rows(cols, func(row int64) error {
		start, err := d.end(t, row, src)
		if err != nil {
			return t.wrap(row, err)
		}
		end, err := d.end(t, row, dst)
		if err != nil {
			return t.wrap(row, err)
		}
		// The nodes after the entities are titles they lack.
		if int64(start) >= d.sum.Entities || int64(end) >= d.sum.Entities {
			d.sum.MissingRels++
		}
		d.sum.Relationships++
		props := make(map[string]any, 2)
		for _, c := range []*column{weight, desc} {
			if err := t.putCell(row, c, props); err != nil {
				return err
			}
		}
		return t.wrap(row, d.rel(t.pos(row), strconv.FormatInt(row, 10), graph.Relates, start, end, props))
	})
}

// linked reads communities or text units: a node labelled label, keyed by
// its column key, and a relationship of type typ between it and each
// entity its entity_ids names (from the entity when not fromRow).
func (d *decoder) linked(t *table, cols map[string]*column, label, key, typ string, fromRow bool) error {
	names := communityProps
	if label == TextUnitLabel {
		names = textUnitProps
	}
	ids := cols["entity_ids"]
	var list []string
	return t.rows(cols, func(row int64) error {
		s, err := t.key(row, cols[key])
		if err != nil {
			return err
		}
		if _, dup := d.titles[s]; dup {
			return &rowError{t.name, row, fmt.Sprintf("the %s %s is the title of another node already", key, quoteShort(s))}
		}
		props := make(map[string]any, len(names)+1)
		props["title"] = s
		if err := t.props(row, cols, names, props); err != nil {
			return err
		}
		if list, err = ids.strings(list[:0]); err != nil {
			return t.cellError(row, ids, err)
		}
		k, err := d.node(t.pos(row), []string{label}, props)
		d.titles[s] = k
		if err != nil {
			return t.wrap(row, err)
		}
		if label == CommunityLabel {
			d.sum.Communities++
		} else {
			d.sum.TextUnits++
		}
		for _, eid := range list {
			e, ok := d.entityIDs[eid]
			if !ok {
				if label == CommunityLabel {
					d.sum.UnknownInCommunities++
				} else {
					d.sum.UnknownInTextUnits++
				}
				continue
			}
			start, end := e, k
			if fromRow {
				start, end = k, e
			}
			id := strconv.FormatInt(d.rels, 10)
			d.rels++
			if label == CommunityLabel {
				d.sum.InCommunity++
			} else {
				d.sum.Mentions++
			}
			if err := d.rel(t.pos(row), id, typ, start, end, map[string]any{}); err != nil {
				return t.wrap(row, err)
			}
		}
		return nil
	})
}

// translate names each problem the checker found at a position by its
// table and row.
func (d *decoder) translate(err error) error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return d.one(err)
	}
	var errs []error
	for _, e := range j.Unwrap() {
		errs = append(errs, d.one(e))
	}
	return errors.Join(errs...)
}

func (d *decoder) one(err error) error {
	var pe *apoc.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	for i := len(d.tables) - 1; i >= 0; i-- {
		if t := d.tables[i]; pe.Line > t.base {
			return &rowError{t.name, int64(pe.Line - t.base - 1), pe.Msg}
		}
	}
	return err
}

// quoteShort quotes s for a message, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}
