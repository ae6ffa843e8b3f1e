package web_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
)

// bombPNG is a PNG of 2048×2048 black pixels, RGBA at 16 bits: about
// 33 KB that decode to 32 MiB.
func bombPNG(t *testing.T) []byte {
	t.Helper()
	const side = 2048
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], side)
	binary.BigEndian.PutUint32(ihdr[4:], side)
	ihdr[8], ihdr[9] = 16, 6 // 16 bits, RGBA
	chunk("IHDR", ihdr)
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestCompression)
	row := make([]byte, 1+side*8)
	for range side {
		_, _ = zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// TestLogoDecodedSizeRefused: a small upload declaring a huge image is
// refused with a 422 beside the logo field, and nothing is stored.
func TestLogoDecodedSizeRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	c := signedIn(t, app, "adatum", "ana@adatum.example")
	images := app.images(t, "adatum")
	code, _, body := app.postMultipart(t, "/adatum/settings", c, map[string]string{"name": "Adatum", "plan": "Premium"}, bombPNG(t))
	says := "The logo is 2048×2048 pixels of 8 bytes each, 32 MiB once opened; keep it under 16 MiB"
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, says) || !strings.Contains(body, `class="field-error"`) {
		t.Fatalf("upload = %d, want 422 saying %q beside the field\n%s", code, says, body)
	}
	if got := app.images(t, "adatum"); got != images {
		t.Fatalf("a refused logo was stored: %d images, %d before", got, images)
	}
}

// images is how many images (logos and pictures) tenant has stored: the
// demo's picture choice has some.
func (app *testApp) images(t *testing.T, tenant string) int {
	t.Helper()
	page, err := app.st.ListBlobs(context.Background(), store.LogosContainer, storage.ListOptions{Prefix: tenant + "-"})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}
