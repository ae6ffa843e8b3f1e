package store_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestUploadQuota: reservations taken at once by many writers never pass
// the quota (a conditional write each), and what is given back may be
// taken again.
func TestUploadQuota(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		if err := store.Init(ctx, st); err != nil {
			t.Fatal(err)
		}
		us := store.NewUploadStore(st)
		tenant := newTenant()
		var wg sync.WaitGroup
		var mu sync.Mutex
		taken, full := 0, 0
		for range 16 {
			wg.Go(func() {
				err := us.Reserve(ctx, tenant, 10, 100)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					taken++
				case errors.Is(err, store.ErrStorageFull):
					full++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if taken != 10 || full != 6 {
			t.Errorf("%d reservations taken, %d refused; want 10 and 6", taken, full)
		}
		if used, err := us.Usage(ctx, tenant); err != nil || used != 100 {
			t.Errorf("usage = %d, %v; want 100", used, err)
		}
		if err := us.Release(ctx, tenant, 25); err != nil {
			t.Fatal(err)
		}
		if err := us.Reserve(ctx, tenant, 25, 100); err != nil {
			t.Errorf("the storage given back cannot be taken again: %v", err)
		}
		if err := us.Reserve(ctx, tenant, 1, 100); !errors.Is(err, store.ErrStorageFull) {
			t.Errorf("a reservation past the quota: %v", err)
		}
	})
}

// TestUploadParts: a file is stored in parts and read back whole, on both
// backends; one larger than its limit is refused and leaves no part; its
// answer's files are deleted but for those claimed.
func TestUploadParts(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		us := store.NewUploadStore(st)
		tenant, slug := newTenant(), "files"
		id := store.NewAnswerID(time.Now())
		for _, size := range []int{0, 1, store.UploadPartSize, store.UploadPartSize + 1, 3*store.UploadPartSize - 7} {
			content := bytes.Repeat([]byte{byte(size)}, size)
			key := store.NewUploadKey(id)
			n, err := us.Put(ctx, tenant, slug, key, bytes.NewReader(content), "text/plain", 3<<20)
			if err != nil || n != int64(size) {
				t.Fatalf("Put %d bytes = %d, %v", size, n, err)
			}
			rc, err := us.Open(ctx, tenant, slug, survey.UploadedFile{Key: key, Size: n})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil || !bytes.Equal(got, content) {
				t.Errorf("%d bytes read back as %d (%v)", size, len(got), err)
			}
		}
		files, err := us.AnswerFiles(ctx, tenant, slug, id)
		if err != nil || len(files) != 5 {
			t.Fatalf("AnswerFiles = %v, %v", files, err)
		}
		tooBig := store.NewUploadKey(id)
		if _, err := us.Put(ctx, tenant, slug, tooBig, bytes.NewReader(make([]byte, 3<<20+1)), "text/plain", 3<<20); !errors.Is(err, store.ErrFileTooLarge) {
			t.Errorf("a file past its limit: %v", err)
		}
		var keep string
		for k := range files {
			keep = k
			break
		}
		if _, err := us.DeleteUnclaimed(ctx, tenant, slug, id, []string{keep}); err != nil {
			t.Fatal(err)
		}
		if left, err := us.AnswerFiles(ctx, tenant, slug, id); err != nil || len(left) != 1 || left[keep] != files[keep] {
			t.Errorf("left after the unclaimed were deleted: %v, %v; want %s only", left, err, keep)
		}
	})
}
