// Package fonts holds the fonts the server draws text with, embedded:
// DejaVu Sans, regular and bold (their licence beside them), whose glyphs
// cover Latin, Greek, Cyrillic, Hebrew and Arabic (with Arabic's
// presentation forms, which the PDF report draws its joined letters
// with). The PDF report (internal/pdfreport) and the charts' PNG images
// (internal/chartdraw) both set their text in them.
package fonts

import _ "embed"

var (
	// Regular is DejaVu Sans, as a TrueType file.
	//go:embed DejaVuSans.ttf
	Regular []byte
	// Bold is DejaVu Sans Bold, as a TrueType file.
	//go:embed DejaVuSans-Bold.ttf
	Bold []byte
)
