package theme

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Colour is an sRGB colour of 8 bits a channel.
type Colour struct{ R, G, B uint8 }

// ParseColour reads "#rrggbb" or "#rgb" (case does not matter).
func ParseColour(s string) (Colour, bool) {
	hex, ok := strings.CutPrefix(strings.TrimSpace(s), "#")
	if !ok {
		return Colour{}, false
	}
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	if len(hex) != 6 {
		return Colour{}, false
	}
	n, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return Colour{}, false
	}
	return Colour{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
}

// String is the colour as "#rrggbb", lower-case.
func (c Colour) String() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// linear is an sRGB channel's linear value (WCAG 2's relative luminance).
func linear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// Luminance is the colour's relative luminance, 0 (black) to 1 (white).
func (c Colour) Luminance() float64 {
	return 0.2126*linear(c.R) + 0.7152*linear(c.G) + 0.0722*linear(c.B)
}

// Contrast is the WCAG contrast ratio of two colours, 1 to 21, whichever
// is lighter.
func Contrast(a, b Colour) float64 {
	la, lb := a.Luminance(), b.Luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// mix is a weighted mean of a and b in sRGB: w of b, 1−w of a.
func mix(a, b Colour, w float64) Colour {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-w) + float64(y)*w)) }
	return Colour{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B)}
}

// FormatRatio writes a contrast ratio as people quote it, to two
// decimals: "4.48:1".
func FormatRatio(r float64) string {
	return strconv.FormatFloat(math.Round(r*100)/100, 'f', 2, 64) + ":1"
}
