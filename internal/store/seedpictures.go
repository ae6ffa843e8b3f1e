package store

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"

	"github.com/surveys-dev/surveys/internal/survey"
)

// demoLook is one of the home screens Adatum's demo survey shows as a
// picture choice, drawn at seed time (no image files ship with the
// binary): a phone-sized app screen in the look's colours.
type demoLook struct {
	label, alt           string
	bg, bar, card, ink   color.RGBA
	accent, accentStrong color.RGBA
}

var demoLooks = []demoLook{
	{label: "Light", alt: "A white home screen with a blue header and grey cards",
		bg: rgb(0xf4, 0xf6, 0xfa), bar: rgb(0x25, 0x63, 0xeb), card: rgb(0xff, 0xff, 0xff), ink: rgb(0xc7, 0xcd, 0xd6),
		accent: rgb(0x93, 0xc5, 0xfd), accentStrong: rgb(0x25, 0x63, 0xeb)},
	{label: "Dark", alt: "A near-black home screen with dark grey cards and teal highlights",
		bg: rgb(0x11, 0x18, 0x27), bar: rgb(0x1f, 0x29, 0x37), card: rgb(0x26, 0x30, 0x40), ink: rgb(0x4b, 0x55, 0x63),
		accent: rgb(0x2d, 0xd4, 0xbf), accentStrong: rgb(0x14, 0xb8, 0xa6)},
	{label: "Colourful", alt: "A cream home screen with an orange header and cards in coral, yellow and green",
		bg: rgb(0xff, 0xf7, 0xed), bar: rgb(0xea, 0x58, 0x0c), card: rgb(0xff, 0xff, 0xff), ink: rgb(0xfd, 0xba, 0x74),
		accent: rgb(0xfa, 0xcc, 0x15), accentStrong: rgb(0x16, 0xa3, 0x4a)},
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 0xff} }

// png draws the look's screen, 320×240 (the size the respondent's page
// gives a picture).
func (l demoLook) png() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(0, 0, 320, 240, l.bg)
	fill(0, 0, 320, 40, l.bar)
	fill(16, 14, 110, 26, l.card) // the title in the header
	for i, c := range []color.RGBA{l.accentStrong, l.accent, l.ink} {
		y := 56 + i*60
		fill(16, y, 304, y+48, l.card)
		fill(28, y+10, 56, y+38, c)           // an icon
		fill(68, y+12, 240-i*30, y+20, l.ink) // a line of text
		fill(68, y+28, 180-i*20, y+34, l.ink)
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to memory does not fail
	return b.Bytes()
}

// seedPictures stores the demo looks as tenant's pictures and gives the
// picture choice's pictures.
func seedPictures(ctx context.Context, logos *LogoStore, tenant string) ([]survey.Picture, error) {
	out := make([]survey.Picture, 0, len(demoLooks))
	for _, l := range demoLooks {
		name, err := logos.PutPicture(ctx, tenant, l.png())
		if err != nil {
			return nil, err
		}
		out = append(out, survey.Picture{Label: l.label, Alt: l.alt, Image: name})
	}
	return out, nil
}
