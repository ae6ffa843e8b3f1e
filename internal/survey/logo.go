package survey

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // registers the JPEG decoder for CheckLogo
	_ "image/png"  // registers the PNG decoder for CheckLogo
	"net/http"
)

// Logo limits: what a survey page can show without slowing it down.
const (
	MaxLogoBytes = 512 << 10
	MaxLogoSide  = 2048
)

// CheckLogo checks an uploaded logo from its bytes, never its name: a PNG
// or JPEG image that decodes, within the size limits. SVG is refused,
// since an SVG can carry script. It returns the content type to serve it
// with and the file extension.
func CheckLogo(data []byte) (contentType, ext string, err error) {
	fail := func(msg string, args ...any) (string, string, error) {
		return "", "", &Error{Code: EINVALID, Message: "The logo was not saved.", Fields: map[string]string{"logo": fmt.Sprintf(msg, args...)}}
	}
	switch {
	case len(data) == 0:
		return fail("Choose an image file to upload.")
	case len(data) > MaxLogoBytes:
		return fail("The logo is %d KiB; keep it under %d KiB.", (len(data)+1023)/1024, MaxLogoBytes/1024)
	}
	switch sniffed := http.DetectContentType(data); sniffed {
	case "image/png":
		contentType, ext = sniffed, "png"
	case "image/jpeg":
		contentType, ext = sniffed, "jpg"
	default:
		if looksLikeSVG(data) {
			return fail("SVG logos are not accepted, since an SVG can carry script; upload a PNG or JPEG.")
		}
		return fail("This file is not a PNG or JPEG image.")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || (format == "png") != (ext == "png") {
		return fail("This image is damaged and cannot be read.")
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoSide || cfg.Height > MaxLogoSide {
		return fail("The logo is %d×%d pixels; keep each side under %d.", cfg.Width, cfg.Height, MaxLogoSide)
	}
	// Decode it whole: a header that lies about the data is refused here.
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return fail("This image is damaged and cannot be read.")
	}
	return contentType, ext, nil
}

func looksLikeSVG(data []byte) bool {
	head := bytes.ToLower(data[:min(len(data), 1024)])
	return bytes.Contains(head, []byte("<svg"))
}
