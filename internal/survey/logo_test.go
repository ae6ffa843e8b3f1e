package survey

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

func pngBytes(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCheckLogo(t *testing.T) {
	good := pngBytes(t, 40, 20)
	tests := []struct {
		name     string
		data     []byte
		wantType string
		wantErr  string
	}{
		{"png", good, "image/png", ""},
		{"jpeg", jpegBytes(t), "image/jpeg", ""},
		{"empty", nil, "", "Choose an image"},
		{"svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "", "SVG logos are not accepted"},
		{"html named .png", []byte("<html><script>alert(1)</script></html>"), "", "not a PNG or JPEG"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "", "not a PNG or JPEG"},
		{"truncated png", good[:len(good)/2], "", "damaged"},
		{"too large", append(append([]byte{}, good...), make([]byte, MaxLogoBytes)...), "", "keep it under"},
		{"too wide", pngBytes(t, MaxLogoSide+1, 1), "", "pixels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, _, err := CheckLogo(tt.data)
			if tt.wantErr == "" {
				if err != nil || ct != tt.wantType {
					t.Fatalf("CheckLogo = %q, %v; want %q", ct, err, tt.wantType)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != EINVALID || !bytes.Contains([]byte(e.Fields["logo"]), []byte(tt.wantErr)) {
				t.Fatalf("CheckLogo error = %v (%+v), want a logo field error saying %q", err, e, tt.wantErr)
			}
		})
	}
}

// FuzzCheckLogo: any bytes give a PNG/JPEG verdict or a field error, never
// a panic, and what is accepted really decodes as what it is served as.
func FuzzCheckLogo(f *testing.F) {
	f.Add(pngBytes(f, 2, 2))
	f.Add(jpegBytes(f))
	f.Add([]byte("<svg onload=alert(1)>"))
	f.Add(bombPNG(f))                      // 2048×2048 at 16 bits: 32 MiB decoded
	f.Add(blankPNG(f, 1024, 1024, 16, 6))  // 8 MiB decoded: within the budget
	f.Add(blankPNG(f, 4000, 1, 8, 3)[:60]) // a header, cut short
	f.Fuzz(func(t *testing.T, data []byte) {
		ct, _, err := CheckLogo(data)
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		if ct != "image/png" && ct != "image/jpeg" {
			t.Fatalf("accepted as %q", ct)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height*bytesPerPixel(cfg.ColorModel) > MaxLogoDecodedBytes {
			t.Fatalf("accepted an image of %d×%d pixels over the decoding budget (%v)", cfg.Width, cfg.Height, err)
		}
		if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
			t.Fatalf("accepted bytes that do not decode: %v", err)
		}
	})
}
