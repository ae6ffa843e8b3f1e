// Package templates holds the html/template pages and partials, embedded in
// the binary.
package templates

import "embed"

// FS holds every template: base.html, partials/*.html and pages/*.html.
//
//go:embed *.html partials pages
var FS embed.FS
