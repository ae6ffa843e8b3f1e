package survey

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// blankPNG is a PNG of w×h black pixels of a colour type and bit depth
// (6, 16: RGBA at 16 bits), written row by row: a small file that
// declares a large image.
func blankPNG(t testing.TB, w, h int, depth, colorType byte) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, colorType
	chunk("IHDR", ihdr)
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	row := make([]byte, 1+(w*channels*int(depth)+7)/8) // filter byte 0, then zeros
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestCompression)
	for range h {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

var (
	bombOnce sync.Once
	bomb     []byte
)

// bombPNG is the PNG of the issue: 2048×2048 RGBA at 16 bits, 32 MiB
// decoded, in about 33 KB.
func bombPNG(t testing.TB) []byte {
	bombOnce.Do(func() { bomb = blankPNG(t, 2048, 2048, 16, 6) })
	return bomb
}

// TestCheckLogoDecodedSize: a logo whose header declares more pixels than
// the decoding budget is refused from its header, before any decode; one
// within the budget is decoded and accepted.
func TestCheckLogoDecodedSize(t *testing.T) {
	var decodes atomic.Int32
	decodeImage = func(r io.Reader) (image.Image, string, error) {
		decodes.Add(1)
		return image.Decode(r)
	}
	t.Cleanup(func() { decodeImage = image.Decode })

	data := bombPNG(t)
	if len(data) > MaxLogoBytes {
		t.Fatalf("the bomb is %d bytes, over the file limit: it tests nothing", len(data))
	}
	_, _, err := CheckLogo(data)
	e, ok := err.(*Error)
	if !ok || e.Code != EINVALID || !strings.Contains(e.Fields["logo"], "2048×2048 pixels of 8 bytes each, 32 MiB once opened; keep it under 16 MiB") {
		t.Fatalf("CheckLogo(2048×2048 at 16 bits) = %v (%+v), want a field error on its size", err, e)
	}
	if n := decodes.Load(); n != 0 {
		t.Fatalf("the refused logo was decoded %d times", n)
	}
	for _, ok := range []struct {
		name string
		data []byte
	}{
		{"1024×1024 RGBA at 16 bits (8 MiB)", blankPNG(t, 1024, 1024, 16, 6)},
		{"2048×2048 grey at 8 bits (4 MiB)", blankPNG(t, 2048, 2048, 8, 0)},
	} {
		if _, _, err := CheckLogo(ok.data); err != nil {
			t.Errorf("%s: %v", ok.name, err)
		}
	}
	if n := decodes.Load(); n != 2 {
		t.Fatalf("decoded %d logos, want the 2 accepted", n)
	}
}

// TestCheckLogoDecodesBounded: however many uploads arrive at once, at
// most MaxLogoDecodes logos are decoded at a time.
func TestCheckLogoDecodesBounded(t *testing.T) {
	const uploads = 8
	var now, peak atomic.Int32
	entered, release := make(chan struct{}, uploads), make(chan struct{})
	decodeImage = func(r io.Reader) (image.Image, string, error) {
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		entered <- struct{}{}
		<-release
		defer now.Add(-1)
		return image.Decode(r)
	}
	t.Cleanup(func() { decodeImage = image.Decode })
	data := pngBytes(t, 16, 16)
	var wg sync.WaitGroup
	errs := make(chan error, uploads)
	for range uploads {
		wg.Go(func() {
			_, _, err := CheckLogo(data)
			errs <- err
		})
	}
	// Wait until MaxLogoDecodes decodes are in, and let the others run
	// into the limit (or, without one, into the decoder).
	for range MaxLogoDecodes {
		<-entered
	}
	for range 100 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p > MaxLogoDecodes || p < 1 {
		t.Fatalf("%d logos decoded at once, want at most %d", p, MaxLogoDecodes)
	}
}
