package survey

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // registers the JPEG decoder for CheckLogo
	_ "image/png"  // registers the PNG decoder for CheckLogo
	"net/http"
)

// Logo limits: what a survey page can show without slowing it down, and
// what checking one may cost. A small file can declare a large image
// (a 32 KB PNG of 2048×2048 at 16 bits decodes to 32 MiB), so the decoded
// size is bounded from the header, before anything is decoded, and only
// MaxLogoDecodes logos are decoded at once.
const (
	MaxLogoBytes = 512 << 10
	MaxLogoSide  = 2048
	// MaxLogoDecodedBytes bounds width × height × bytes per pixel: a
	// 2048×2048 logo of 8-bit RGBA fits, the same at 16 bits does not.
	MaxLogoDecodedBytes = 16 << 20
	MaxLogoDecodes      = 2
)

// logoDecodes holds a slot per logo being decoded.
var logoDecodes = make(chan struct{}, MaxLogoDecodes)

// decodeImage decodes an image (a variable, so that a test can watch the
// decodes).
var decodeImage = image.Decode

// bytesPerPixel is what one pixel of an image of model m takes decoded;
// an unknown model counts as the largest.
func bytesPerPixel(m color.Model) int {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8 // RGBA64, NRGBA64 and anything else
}

// CheckLogo checks an uploaded logo from its bytes, never its name: a PNG
// or JPEG image that decodes, within the size limits. SVG is refused,
// since an SVG can carry script. It returns the content type to serve it
// with and the file extension.
func CheckLogo(data []byte) (contentType, ext string, err error) { return CheckImage(data, "logo") }

// CheckImage checks an uploaded public image (a logo, a picture choice's
// picture) as CheckLogo does, within the same limits; what names it in
// the problems ("logo", "picture"), and is the field of the error.
func CheckImage(data []byte, what string) (contentType, ext string, err error) {
	fail := func(msg string, args ...any) (string, string, error) {
		return "", "", &Error{Code: EINVALID, Message: "The " + what + " was not saved.", Fields: map[string]string{what: fmt.Sprintf(msg, args...)}}
	}
	switch {
	case len(data) == 0:
		return fail("Choose an image file to upload.")
	case len(data) > MaxLogoBytes:
		return fail("The %s is %d KiB; keep it under %d KiB.", what, (len(data)+1023)/1024, MaxLogoBytes/1024)
	}
	switch sniffed := http.DetectContentType(data); sniffed {
	case "image/png":
		contentType, ext = sniffed, "png"
	case "image/jpeg":
		contentType, ext = sniffed, "jpg"
	default:
		if looksLikeSVG(data) {
			return fail("SVG %ss are not accepted, since an SVG can carry script; upload a PNG or JPEG.", what)
		}
		return fail("This file is not a PNG or JPEG image.")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || (format == "png") != (ext == "png") {
		return fail("This image is damaged and cannot be read.")
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoSide || cfg.Height > MaxLogoSide {
		return fail("The %s is %d×%d pixels; keep each side under %d.", what, cfg.Width, cfg.Height, MaxLogoSide)
	}
	if bpp := bytesPerPixel(cfg.ColorModel); cfg.Width*cfg.Height*bpp > MaxLogoDecodedBytes {
		return fail("The %s is %d×%d pixels of %d bytes each, %d MiB once opened; keep it under %d MiB: fewer pixels, or 8 bits a colour.",
			what, cfg.Width, cfg.Height, bpp, (cfg.Width*cfg.Height*bpp+(1<<20)-1)>>20, MaxLogoDecodedBytes>>20)
	}
	// Decode it whole: a header that lies about the data is refused here.
	logoDecodes <- struct{}{}
	_, _, err = decodeImage(bytes.NewReader(data))
	<-logoDecodes
	if err != nil {
		return fail("This image is damaged and cannot be read.")
	}
	return contentType, ext, nil
}

func looksLikeSVG(data []byte) bool {
	head := bytes.ToLower(data[:min(len(data), 1024)])
	return bytes.Contains(head, []byte("<svg"))
}
