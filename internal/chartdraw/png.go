package chartdraw

import (
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"

	"github.com/surveys-dev/surveys/internal/rtl"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// MaxHeight bounds a PNG image's height, in pixels, whatever the chart
// (its lists are bounded already: MaxItems).
const MaxHeight = 4000

// WritePNG writes q's chart to w as a PNG image, Width pixels wide, its
// text set in DejaVu Sans.
func WritePNG(w io.Writer, q Question) error {
	m, err := newMeasurer()
	if err != nil {
		return err
	}
	d := layout(q, m)
	h := min(int(math.Ceil(d.h)), MaxHeight)
	img := image.NewRGBA(image.Rect(0, 0, Width, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	for _, s := range d.shapes {
		if s.text == "" {
			r := image.Rect(int(math.Round(s.x)), int(math.Round(s.y)), int(math.Round(s.x+s.w)), int(math.Round(s.y+s.h)))
			draw.Draw(img, r, image.NewUniform(s.fill), image.Point{}, draw.Src)
			continue
		}
		face := m.face(s.size, s.bold)
		text := drawn(s.text)
		x := s.x
		if s.end {
			x -= m.width(text, s.size, s.bold)
		}
		dr := font.Drawer{Dst: img, Src: image.NewUniform(s.fill), Face: face, Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(s.y * 64)}}
		dr.DrawString(text)
	}
	return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, img)
}

// drawn is s as the PNG draws it: Arabic letters joined and right-to-left
// runs in display order, as a browser sets the SVG's text.
func drawn(s string) string {
	if !rtl.Has(s) {
		return s
	}
	return rtl.Visual(rtl.Shape(s), false)
}
