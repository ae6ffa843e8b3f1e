package migrate_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestUploadsCarried: the files respondents sent (a survey's uploads
// container, in parts), their pending markers and the tenant's usage are
// carried by a backup of the embedded store and by a migration to Azure
// Storage, which copy every container: each file reads back whole from
// the copy.
func TestUploadsCarried(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "surveys.db")
	s, err := local.Open(path)
	must(t, "Open", err)
	must(t, "Init", store.Init(ctx, s))
	tenant, slug := "u"+strings.ToLower(rand.Text()[:10]), "files"
	us := store.NewUploadStore(s)
	id := store.NewAnswerID(time.Now())
	content := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("0123456789"), store.UploadPartSize/4)...) // 2.5 parts
	must(t, "Reserve", us.Reserve(ctx, tenant, int64(len(content)), 0))
	must(t, "Pending", us.Pending(ctx, tenant, slug, id))
	key := store.NewUploadKey(id)
	size, err := us.Put(ctx, tenant, slug, key, bytes.NewReader(content), "application/pdf", 5<<20)
	must(t, "Put", err)
	must(t, "Close", s.Close())
	file := survey.UploadedFile{Name: "cv.pdf", Size: size, Type: "application/pdf", Key: key}

	check := func(t *testing.T, st storage.Storage) {
		t.Helper()
		us := store.NewUploadStore(st)
		rc, err := us.Open(ctx, tenant, slug, file)
		must(t, "Open file", err)
		got, err := io.ReadAll(rc)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("the copy's file: %d bytes (%v), want %d", len(got), err, len(content))
		}
		if used, err := us.Usage(ctx, tenant); err != nil || used != int64(len(content)) {
			t.Errorf("the copy's usage = %d (%v), want %d", used, err, len(content))
		}
		pending, err := us.PendingBefore(ctx, time.Now().Add(time.Hour), 100)
		must(t, "PendingBefore", err)
		found := false
		for _, p := range pending {
			found = found || p.ID == id && p.Tenant == tenant
		}
		if !found {
			t.Error("the copy lost the answer's pending marker")
		}
	}

	t.Run("backup", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "backup.db")
		must(t, "Backup", local.Backup(ctx, path, dst))
		b, err := local.Open(dst)
		must(t, "Open backup", err)
		defer b.Close()
		check(t, b)
	})
	t.Run("migrate", func(t *testing.T) {
		snap, err := local.OpenSnapshot(ctx, path)
		must(t, "OpenSnapshot", err)
		defer snap.Close()
		dst := newAzurite(t)
		_, err = migrate.Copy(ctx, snap, dst, migrate.Options{Checkpoint: path + ".checkpoint", Destination: "azurite"})
		must(t, "Copy", err)
		check(t, dst)
	})
}
