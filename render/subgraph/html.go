package subgraph

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"strings"
)

// D3Version is the release of D3 embedded in every page.
const D3Version = "7.9.2"

//go:embed assets/d3.v7.9.2.min.js
var d3Script string

//go:embed assets/LICENSE.d3
var d3Licence string

//go:embed page.js
var pageScript string

//go:embed page.css
var pageStyle string

// HTML is the whole page: one file, every script and style inline, D3
// included, under a Content-Security-Policy that allows those and nothing
// else.
func HTML(p Graph) ([]byte, error) {
	data, err := DataJSON(p)
	if err != nil {
		return nil, err
	}
	d3 := "/*! D3 " + D3Version + " (https://d3js.org), from the npm package d3@" + D3Version + ". Its licence:\n\n" +
		strings.ReplaceAll(d3Licence, "*/", "* /") + "*/\n" + d3Script
	var b bytes.Buffer
	b.Grow(len(d3) + len(data) + len(pageScript) + len(pageStyle) + 2048)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + CSP(d3, pageScript, pageStyle) + "\">\n")
	b.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"generator\" content=\"memoria\">\n<title>memoria</title>\n")
	b.WriteString("<style>" + pageStyle + "</style>\n</head>\n<body>\n")
	b.WriteString(body)
	b.WriteString(`<script id="memoria-data" type="application/json">`)
	b.Write(data)
	b.WriteString("</script>\n<script>" + d3 + "</script>\n<script>" + pageScript + "</script>\n</body>\n</html>\n")
	return b.Bytes(), nil
}

// CSP is the page's Content-Security-Policy: nothing may load (no fetch,
// image, font, frame, form or base change), and the only scripts and style
// that run are the inline ones whose sha256 it lists.
func CSP(d3, script, style string) string {
	return "default-src 'none'; script-src " + hash(d3) + " " + hash(script) + "; style-src " + hash(style) +
		"; img-src 'none'; connect-src 'none'; font-src 'none'; base-uri 'none'; form-action 'none'"
}

// hash is a CSP source expression for an inline element's content.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// body is the page's fixed markup: every graph-derived text is filled in
// by the script, through textContent.
const body = `<header id="top">
<h1 id="title">memoria</h1>
<div id="notes"></div>
</header>
<div id="controls">
<label><input type="checkbox" id="show-misses" checked> near misses and losers (dashed)</label>
<label><input type="checkbox" id="show-labels"> every label</label>
<button type="button" id="reset-zoom">reset zoom</button>
<span id="counts"></span>
</div>
<div id="legend"></div>
<svg id="graph" role="img" aria-label="retrieved subgraph"></svg>
<aside id="details"><p class="hint">Hover a node or an edge for its scores; click to keep its details here. Drag nodes, scroll to zoom.</p></aside>
<div id="tooltip" role="tooltip"></div>
`
