// Package web holds the static assets (CSS, images), embedded in the binary.
package web

import "embed"

// Static is the static folder.
//
//go:embed static
var Static embed.FS
