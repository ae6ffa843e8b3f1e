package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
)

func isNotFound(err error) bool     { return errors.Is(err, storage.ErrNotFound) }
func isPrecondition(err error) bool { return errors.Is(err, storage.ErrPrecondition) }

// runBlobs is the contract of storage.Blobs, a subtest per aspect, each in
// a container of its own.
func runBlobs(t *testing.T, newStorage func(t *testing.T) storage.Storage) {
	// inContainer runs test on a storage and a fresh, created container.
	inContainer := func(test func(t *testing.T, s storage.Blobs, c string)) func(t *testing.T) {
		return func(t *testing.T) {
			s := newStorage(t)
			name := dnsName("c")
			noErr(t, "CreateContainer", s.CreateContainer(ctx(t), name, false))
			test(t, s, name)
		}
	}
	// Blobs, one at a time.
	t.Run("RoundTrip", inContainer(blobRoundTrip))
	t.Run("NotFound", inContainer(blobNotFound))
	t.Run("Into", inContainer(blobInto))
	// Conditional writes.
	t.Run("Conditions", inContainer(blobConditions))
	t.Run("ConcurrentWriters", inContainer(blobConcurrentWriters))
	// Listings and containers.
	t.Run("List", inContainer(blobList))
	t.Run("DeleteContainer", inContainer(blobDeleteContainer))
	// What names are valid.
	t.Run("Names", func(t *testing.T) { blobNames(t, newStorage(t)) })
}

// blobRoundTrip checks that a blob reads back with its bytes, content
// type, ETag and time, that an empty blob is a blob, and that creating an
// existing container keeps its blobs.
func blobRoundTrip(t *testing.T, s storage.Blobs, c string) {
	data := []byte("{\"answer\":\"ünïcode\"}\x00\xff")
	etag, err := s.PutBlob(ctx(t), c, "adatum/answer 1.json", data, storage.PutOptions{ContentType: "application/json"})
	noErr(t, "PutBlob", err)
	if etag == "" {
		t.Fatal("PutBlob returned an empty ETag")
	}
	b, err := s.GetBlob(ctx(t), c, "adatum/answer 1.json")
	noErr(t, "GetBlob", err)
	if !bytes.Equal(b.Data, data) || b.ContentType != "application/json" || b.ETag != etag || b.LastModified.IsZero() {
		t.Errorf("GetBlob = %q %q %q %v; want %q application/json %q", b.Data, b.ContentType, b.ETag, b.LastModified, data, etag)
	}
	// An empty blob is a blob.
	_, err = s.PutBlob(ctx(t), c, "empty", nil, storage.PutOptions{})
	noErr(t, "PutBlob empty", err)
	b, err = s.GetBlob(ctx(t), c, "empty")
	noErr(t, "GetBlob empty", err)
	if len(b.Data) != 0 {
		t.Errorf("empty blob has %d bytes", len(b.Data))
	}
	noErr(t, "CreateContainer again", s.CreateContainer(ctx(t), c, false))
	if _, err := s.GetBlob(ctx(t), c, "empty"); err != nil {
		t.Errorf("CreateContainer of an existing container lost its blobs: %v", err)
	}
}

// blobInto checks GetBlobInto (storage.BlobIntoReader, which a storage
// has or not: the function falls back to GetBlob): a blob reads back into
// the buffer given, in its memory when it fits, whatever it held, as
// GetBlob reads it; a missing blob is not found.
func blobInto(t *testing.T, s storage.Blobs, c string) {
	big := bytes.Repeat([]byte("segment \"\u00e9\"\n"), 4000)
	small := []byte("{\"answer\":\"ünïcode\"}\x00\xff")
	for _, data := range [][]byte{big, small, {}} {
		_, err := s.PutBlob(ctx(t), c, "b", data, storage.PutOptions{ContentType: "application/x-ndjson"})
		noErr(t, "PutBlob", err)
		want, err := s.GetBlob(ctx(t), c, "b")
		noErr(t, "GetBlob", err)
		buf := bytes.Repeat([]byte("x"), len(big)+1)
		got, err := storage.GetBlobInto(ctx(t), s, c, "b", buf)
		noErr(t, "GetBlobInto", err)
		if !bytes.Equal(got.Data, data) || got.Data == nil || got.ContentType != want.ContentType || got.ETag != want.ETag || !got.LastModified.Equal(want.LastModified) {
			t.Errorf("GetBlobInto = %d bytes %q %q %v; GetBlob: %d bytes %q %q %v", len(got.Data), got.ContentType, got.ETag, got.LastModified, len(want.Data), want.ContentType, want.ETag, want.LastModified)
		}
		if _, into := s.(storage.BlobIntoReader); into && len(got.Data) > 0 && &got.Data[0] != &buf[0] {
			t.Errorf("GetBlobInto read %d bytes into new memory, not the buffer of %d", len(got.Data), len(buf))
		}
		// Without a buffer, or one too small.
		for _, buf := range [][]byte{nil, make([]byte, 3)} {
			got, err := storage.GetBlobInto(ctx(t), s, c, "b", buf)
			noErr(t, "GetBlobInto", err)
			if !bytes.Equal(got.Data, data) || got.Data == nil {
				t.Errorf("GetBlobInto into %d bytes = %d bytes, want %d", len(buf), len(got.Data), len(data))
			}
		}
	}
	_, err := storage.GetBlobInto(ctx(t), s, c, "missing", nil)
	wantErr(t, "GetBlobInto of a missing blob", err, storage.ErrNotFound)
	_, err = storage.GetBlobInto(ctx(t), s, dnsName("nope"), "b", nil)
	wantErr(t, "GetBlobInto from a missing container", err, storage.ErrNotFound)
}

// blobNotFound checks that reads, writes, listings and deletes of a
// missing blob or in a missing container fail with storage.ErrNotFound
// (a write or a listing in a missing container with
// storage.ErrContainerNotFound).
func blobNotFound(t *testing.T, s storage.Blobs, c string) {
	_, err := s.GetBlob(ctx(t), c, "missing")
	wantErr(t, "GetBlob of a missing blob", err, storage.ErrNotFound)
	missing := dnsName("nope")
	_, err = s.PutBlob(ctx(t), missing, "b", []byte("x"), storage.PutOptions{})
	wantErr(t, "PutBlob into a missing container", err, storage.ErrContainerNotFound)
	wantErr(t, "PutBlob into a missing container (as not found)", err, storage.ErrNotFound)
	// A conditional write too (the worker files an answer so, and makes
	// its survey's container when told it is missing).
	_, err = s.PutBlob(ctx(t), missing, "b", []byte("x"), storage.PutOptions{IfNoneMatch: storage.ETagAny})
	wantErr(t, "PutBlob if none match into a missing container", err, storage.ErrContainerNotFound)
	_, err = s.GetBlob(ctx(t), missing, "b")
	wantErr(t, "GetBlob from a missing container", err, storage.ErrNotFound)
	_, err = s.ListBlobs(ctx(t), missing, storage.ListOptions{})
	wantErr(t, "ListBlobs of a missing container", err, storage.ErrContainerNotFound)
	wantErr(t, "DeleteBlob of a missing blob", s.DeleteBlob(ctx(t), c, "missing", ""), storage.ErrNotFound)
	wantErr(t, "DeleteContainer of a missing container", s.DeleteContainer(ctx(t), missing), storage.ErrNotFound)
}

// blobConditions checks the conditional writes: If-None-Match * only
// creates, If-Match only replaces the current ETag, a failed write changes
// nothing, and a deleted blob may be created again.
func blobConditions(t *testing.T, s storage.Blobs, c string) {
	first, err := s.PutBlob(ctx(t), c, "b", []byte("1"), storage.PutOptions{IfNoneMatch: storage.ETagAny})
	noErr(t, "PutBlob if none match", err)
	_, err = s.PutBlob(ctx(t), c, "b", []byte("2"), storage.PutOptions{IfNoneMatch: storage.ETagAny})
	wantErr(t, "PutBlob if none match over an existing blob", err, storage.ErrPrecondition)
	second, err := s.PutBlob(ctx(t), c, "b", []byte("2"), storage.PutOptions{IfMatch: first})
	noErr(t, "PutBlob if match current", err)
	if second == first {
		t.Fatal("ETag did not change")
	}
	_, err = s.PutBlob(ctx(t), c, "b", []byte("3"), storage.PutOptions{IfMatch: first})
	wantErr(t, "PutBlob if match stale", err, storage.ErrPrecondition)
	_, err = s.PutBlob(ctx(t), c, "new", []byte("3"), storage.PutOptions{IfMatch: first})
	wantErr(t, "PutBlob if match on a missing blob", err, storage.ErrPrecondition)
	_, err = s.PutBlob(ctx(t), c, "new", []byte("3"), storage.PutOptions{IfMatch: storage.ETagAny})
	wantErr(t, "PutBlob if match * on a missing blob", err, storage.ErrPrecondition)
	wantErr(t, "DeleteBlob if match stale", s.DeleteBlob(ctx(t), c, "b", first), storage.ErrPrecondition)
	b, err := s.GetBlob(ctx(t), c, "b")
	noErr(t, "GetBlob", err)
	if string(b.Data) != "2" || b.ETag != second {
		t.Errorf("blob = %q %q after failed writes, want 2 %q", b.Data, b.ETag, second)
	}
	if _, err := s.GetBlob(ctx(t), c, "new"); !isNotFound(err) {
		t.Errorf("a conditional put created a blob: %v", err)
	}
	noErr(t, "DeleteBlob if match current", s.DeleteBlob(ctx(t), c, "b", second))
	_, err = s.PutBlob(ctx(t), c, "b", []byte("again"), storage.PutOptions{IfNoneMatch: storage.ETagAny})
	noErr(t, "PutBlob if none match after delete", err)
}

// blobConcurrentWriters checks that writers incrementing one counter blob
// with read, then write if the ETag matches, lose no write.
func blobConcurrentWriters(t *testing.T, s storage.Blobs, c string) {
	_, err := s.PutBlob(ctx(t), c, "counter", []byte("0"), storage.PutOptions{})
	noErr(t, "PutBlob", err)
	const writers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for attempt := 0; ; attempt++ {
					if attempt > 200 {
						errs <- fmt.Errorf("no progress after %d attempts", attempt)
						return
					}
					b, err := s.GetBlob(ctx(t), c, "counter")
					if err != nil {
						errs <- err
						return
					}
					var n int
					fmt.Sscan(string(b.Data), &n)
					_, err = s.PutBlob(ctx(t), c, "counter", []byte(fmt.Sprint(n+1)), storage.PutOptions{IfMatch: b.ETag})
					if err == nil {
						break
					}
					if !isPrecondition(err) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, err := s.GetBlob(ctx(t), c, "counter")
	noErr(t, "GetBlob", err)
	if string(b.Data) != fmt.Sprint(writers*each) {
		t.Errorf("counter = %s, want %d: a write was lost", b.Data, writers*each)
	}
}

// blobList checks that a listing by prefix comes in pages of at most
// MaxResults, in name order, with sizes and ETags and nothing outside the
// prefix, and that a listing of everything has every blob.
func blobList(t *testing.T, s storage.Blobs, c string) {
	var want []string
	for i := 0; i < 23; i++ {
		name := fmt.Sprintf("adatum-survey/%019d", 638_000_000_000_000_000+int64(i)*7)
		want = append(want, name)
		_, err := s.PutBlob(ctx(t), c, name, []byte(name), storage.PutOptions{})
		noErr(t, "PutBlob", err)
	}
	for _, name := range []string{"adatum-surveyx/1", "adatum-surve", "fabrikam/1"} {
		_, err := s.PutBlob(ctx(t), c, name, []byte("other"), storage.PutOptions{})
		noErr(t, "PutBlob", err)
	}
	var got []string
	o := storage.ListOptions{Prefix: "adatum-survey/", MaxResults: 10}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("listing never ends")
		}
		page, err := s.ListBlobs(ctx(t), c, o)
		noErr(t, "ListBlobs", err)
		if len(page.Items) > 10 {
			t.Fatalf("page has %d items, MaxResults is 10", len(page.Items))
		}
		for _, it := range page.Items {
			if it.Size != int64(len(it.Name)) || it.ETag == "" {
				t.Errorf("item %s: size %d etag %q", it.Name, it.Size, it.ETag)
			}
			got = append(got, it.Name)
		}
		if page.NextMarker == "" {
			break
		}
		o.Marker = page.NextMarker
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("listed %v,\nwant %v", got, want)
	}
	page, err := s.ListBlobs(ctx(t), c, storage.ListOptions{})
	noErr(t, "ListBlobs all", err)
	if len(page.Items) != 26 || page.Items[0].Name != "adatum-surve" || page.Items[25].Name != "fabrikam/1" {
		t.Errorf("full listing has %d items, first %q", len(page.Items), page.Items[0].Name)
	}
}

// blobDeleteContainer checks that deleting a container deletes its blobs.
func blobDeleteContainer(t *testing.T, s storage.Blobs, c string) {
	_, err := s.PutBlob(ctx(t), c, "b", []byte("x"), storage.PutOptions{})
	noErr(t, "PutBlob", err)
	noErr(t, "DeleteContainer", s.DeleteContainer(ctx(t), c))
	_, err = s.GetBlob(ctx(t), c, "b")
	wantErr(t, "GetBlob after DeleteContainer", err, storage.ErrNotFound)
}

// blobNames checks which container and blob names are refused
// (storage.ErrInvalid) and which of the longest and unicode ones are
// taken.
func blobNames(t *testing.T, s storage.Blobs) {
	for _, name := range []string{"ab", "Abc", "a--b", "-abc", "abc-", "a_bc", "abc.d", strings.Repeat("a", 64), ""} {
		wantErr(t, fmt.Sprintf("CreateContainer(%q)", name), s.CreateContainer(ctx(t), name, false), storage.ErrInvalid)
	}
	long := randHex(8) + "-" + strings.Repeat("z", 54)
	noErr(t, "CreateContainer of a 63-character name", s.CreateContainer(ctx(t), long, true))
	noErr(t, "CreateContainer of a 3-character name", s.CreateContainer(ctx(t), randHex(3), false))
	for _, name := range []string{"", "dot.", "slash/", "ctl\x01", strings.Repeat("n", 1025)} {
		_, err := s.PutBlob(ctx(t), long, name, []byte("x"), storage.PutOptions{})
		wantErr(t, fmt.Sprintf("PutBlob(%q)", name), err, storage.ErrInvalid)
	}
	_, err := s.PutBlob(ctx(t), long, "logo-ünï 😀.png", []byte("x"), storage.PutOptions{})
	noErr(t, "PutBlob with a unicode name", err)
	if _, err := s.GetBlob(ctx(t), long, "logo-ünï 😀.png"); err != nil {
		t.Errorf("GetBlob with a unicode name: %v", err)
	}
	noErr(t, "DeleteContainer", s.DeleteContainer(ctx(t), long))
}
