// Package templates holds the html/template pages and partials, embedded in
// the binary.
package templates

import "embed"

// FS holds every template: base.html, partials/*.html, pages/*.html and
// each kind of question's input and chart, kinds/<key>.input.html and
// kinds/<key>.chart.html.
//
//go:embed *.html partials pages kinds
var FS embed.FS
