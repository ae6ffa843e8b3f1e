package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Files respondents send (the File upload kind) live in a container per
// survey, UploadsContainer, beside its answers container. A file is a
// series of part blobs of at most UploadPartSize bytes, named by the
// file's key (survey.UploadedFile.Key: the answer's ID, "/", 16 random hex
// digits) and the part's number: "<answer ID>/<random>/0000", "…/0001".
// Parts keep the memory a file costs to a part, whatever its size, on
// both backends and through every storage layer (counting, faults,
// placement), with the storage contract as it is; a 10 MB file costs ten
// writes, as many as an Azure block blob staged block by block.
//
// Exactly once, no orphans: before the first part of an answer's files is
// written, a pending marker names the answer (PendingUploadsContainer,
// "<unix nanoseconds>/<tenant>/<slug>/<answer ID>"). The answer, when
// acknowledged, names its files. The sweeper (worker/uploads.go) takes the
// markers older than a grace period, reads the answer and deletes every
// file under the answer's ID that the answer does not name (a respondent
// who never sent the form, a second post of the same form, a page sent
// again), then the marker. A crash between any two calls leaves a marker
// (the sweep is done again) or nothing left to do; an answer never names
// a file that was not written whole before it was acknowledged.

const (
	uploadsPrefix = "surveyuploads-"
	// PendingUploadsContainer holds the markers of answers whose files
	// are not known to be claimed yet.
	PendingUploadsContainer = "surveyuploadspending"
	// UploadPartSize is the largest part of a stored file.
	UploadPartSize = 1 << 20
	// usagePrefix names a tenant's upload usage in SystemContainer.
	usagePrefix = "uploadusage-"
)

// UploadsContainer names the container of a survey's files:
// "surveyuploads-<tenant>-<slug>", shortened with a hash as
// AnswersContainer is.
func UploadsContainer(tenant, slug string) string {
	return dnsName(uploadsPrefix+tenant+"-"+slug, "uploads/"+tenant+"/"+slug)
}

// ErrFileTooLarge: a file sent is larger than it may be.
var ErrFileTooLarge = errors.New("store: the file is too large")

// UploadStore keeps the files respondents send.
type UploadStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewUploadStore returns an UploadStore over st.
func NewUploadStore(st storage.Storage) *UploadStore {
	return &UploadStore{st: st, now: time.Now}
}

// NewUploadKey names a new file of answer id.
func NewUploadKey(id string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return id + "/" + hex.EncodeToString(b[:])
}

// partName names part i of the file key.
func partName(key string, i int) string { return fmt.Sprintf("%s/%04d", key, i) }

// putCreating puts a blob, creating its container on the first 404.
func (us *UploadStore) putCreating(ctx context.Context, container, name string, data []byte, o storage.PutOptions) error {
	_, err := us.st.PutBlob(ctx, container, name, data, o)
	if isContainerNotFound(err) {
		if err := us.st.CreateContainer(ctx, container, false); err != nil {
			return err
		}
		_, err = us.st.PutBlob(ctx, container, name, data, o)
	}
	return err
}

// Pending marks answer id's files pending: called before the first part
// of a file of the answer is written (once per request that writes some).
func (us *UploadStore) Pending(ctx context.Context, tenant, slug, id string) error {
	if !ValidAnswerID(id) {
		return survey.Errorf(survey.EINVALID, "Answer ID %q is not valid.", id)
	}
	name := fmt.Sprintf("%019d/%s/%s/%s", us.now().UnixNano(), tenant, slug, id)
	return mapErr(us.putCreating(ctx, PendingUploadsContainer, name, nil, storage.PutOptions{}), "Pending upload")
}

// partBufs are the buffers of parts being written.
var partBufs = sync.Pool{New: func() any { b := make([]byte, UploadPartSize); return &b }}

// Put stores what r gives as the file key of a survey's answer, part by
// part, and returns its size. More than limit bytes is ErrFileTooLarge,
// and what was written of it is deleted; the error also wraps
// ErrPartsLeft when some of it may be left, for the sweeper. The answer's
// marker must be written first (Pending).
func (us *UploadStore) Put(ctx context.Context, tenant, slug, key string, r io.Reader, contentType string, limit int64) (int64, error) {
	if !survey.ValidUploadKey(key) {
		return 0, survey.Errorf(survey.EINVALID, "Upload key %q is not valid.", key)
	}
	container := UploadsContainer(tenant, slug)
	bp := partBufs.Get().(*[]byte)
	defer partBufs.Put(bp)
	buf := *bp
	var size int64
	for i := 0; ; i++ {
		n, err := io.ReadFull(r, buf)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			left := us.deleteParts(context.WithoutCancel(ctx), container, key, i)
			return 0, errors.Join(fmt.Errorf("store: read upload: %w", err), left)
		}
		if size+int64(n) > limit {
			return 0, errors.Join(ErrFileTooLarge, us.deleteParts(context.WithoutCancel(ctx), container, key, i))
		}
		if n > 0 || i == 0 {
			if err := us.putCreating(ctx, container, partName(key, i), buf[:n], storage.PutOptions{ContentType: contentType}); err != nil {
				// This part may have been written (a reply lost): it is
				// the sweeper's.
				_ = us.deleteParts(context.WithoutCancel(ctx), container, key, i)
				return 0, errors.Join(mapErr(err, "Upload"), ErrPartsLeft)
			}
		}
		size += int64(n)
		if n < len(buf) {
			return size, nil
		}
	}
}

// ErrPartsLeft: a file refused or failed left parts that could not be
// deleted; the sweeper deletes them (and gives their bytes back then).
var ErrPartsLeft = errors.New("store: parts of the file are left for the sweeper")

// deleteParts deletes the first n parts of file key, as far as it can:
// ErrPartsLeft when some are left, for the sweeper.
func (us *UploadStore) deleteParts(ctx context.Context, container, key string, n int) error {
	for i := 0; i < n; i++ {
		if err := us.st.DeleteBlob(ctx, container, partName(key, i), ""); err != nil && !isNotFound(err) {
			return ErrPartsLeft
		}
	}
	return nil
}

// parts is the number of parts of a file of size bytes.
func parts(size int64) int {
	if size <= 0 {
		return 1
	}
	return int((size + UploadPartSize - 1) / UploadPartSize)
}

// Open returns the content of file f of a survey's answer, read part by
// part. A file that is not there gives ENOTFOUND before anything is read.
func (us *UploadStore) Open(ctx context.Context, tenant, slug string, f survey.UploadedFile) (io.ReadCloser, error) {
	if !survey.ValidUploadKey(f.Key) {
		return nil, survey.Errorf(survey.ENOTFOUND, "File not found.")
	}
	container := UploadsContainer(tenant, slug)
	first, err := us.st.GetBlob(ctx, container, partName(f.Key, 0))
	if err != nil {
		return nil, mapErr(err, "File")
	}
	return &partReader{ctx: ctx, us: us, container: container, key: f.Key, n: parts(f.Size), data: first.Data}, nil
}

// partReader reads a file's parts in turn.
type partReader struct {
	ctx       context.Context
	us        *UploadStore
	container string
	key       string
	n, next   int // parts, and the part after the one in data
	data      []byte
}

func (p *partReader) Read(b []byte) (int, error) {
	for len(p.data) == 0 {
		p.next++
		if p.next >= p.n {
			return 0, io.EOF
		}
		blob, err := p.us.st.GetBlob(p.ctx, p.container, partName(p.key, p.next))
		if err != nil {
			return 0, mapErr(err, "File")
		}
		p.data = blob.Data
	}
	n := copy(b, p.data)
	p.data = p.data[n:]
	return n, nil
}

func (p *partReader) Close() error { p.data = nil; return nil }

// AnswerFiles lists the files stored under answer id, with their sizes.
func (us *UploadStore) AnswerFiles(ctx context.Context, tenant, slug, id string) (map[string]int64, error) {
	out := map[string]int64{}
	err := us.eachPart(ctx, tenant, slug, id+"/", func(it storage.BlobItem) error {
		key := it.Name[:strings.LastIndexByte(it.Name, '/')]
		out[key] += it.Size
		return nil
	})
	return out, err
}

// eachPart calls f with every part under prefix.
func (us *UploadStore) eachPart(ctx context.Context, tenant, slug, prefix string, f func(storage.BlobItem) error) error {
	return eachBlob(ctx, us.st, UploadsContainer(tenant, slug), prefix, "Files", func(it storage.BlobItem) error {
		if strings.Count(it.Name, "/") != 2 {
			return nil
		}
		return f(it)
	})
}

// DeleteUnclaimed deletes the files of answer id that claimed does not
// name (all of them when it is empty), and returns the bytes freed.
func (us *UploadStore) DeleteUnclaimed(ctx context.Context, tenant, slug, id string, claimed []string) (int64, error) {
	if !ValidAnswerID(id) {
		return 0, nil
	}
	keep := make(map[string]bool, len(claimed))
	for _, k := range claimed {
		keep[k] = true
	}
	container := UploadsContainer(tenant, slug)
	var names []string
	var sizes []int64
	err := us.eachPart(ctx, tenant, slug, id+"/", func(it storage.BlobItem) error {
		if !keep[it.Name[:strings.LastIndexByte(it.Name, '/')]] {
			names, sizes = append(names, it.Name), append(sizes, it.Size)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// Only the parts this call deleted count: of two sweepers (or a
	// sweeper and an answer's deletion) at once, each part is given back
	// once.
	var freed int64
	for i, name := range names {
		err := us.st.DeleteBlob(ctx, container, name, "")
		switch {
		case err == nil:
			freed += sizes[i]
		case !isNotFound(err):
			return freed, mapErr(err, "File")
		}
	}
	return freed, nil
}

// deleteAll deletes a survey's files, and gives their bytes back to the
// tenant's storage (a crash between the two leaves them taken: the
// conservative side).
func (us *UploadStore) deleteAll(ctx context.Context, tenant, slug string) error {
	var n int64
	if err := us.eachPart(ctx, tenant, slug, "", func(it storage.BlobItem) error { n += it.Size; return nil }); err != nil {
		return err
	}
	if err := us.st.DeleteContainer(ctx, UploadsContainer(tenant, slug)); err != nil && !isNotFound(err) {
		return mapErr(err, "Files")
	}
	return us.Release(ctx, tenant, n)
}

// DeleteAnswerFiles deletes every file stored under answer id (a deleted
// answer's) and gives their bytes back.
func (us *UploadStore) DeleteAnswerFiles(ctx context.Context, tenant, slug, id string) error {
	freed, err := us.DeleteUnclaimed(ctx, tenant, slug, id, nil)
	if err != nil {
		return err
	}
	return us.Release(ctx, tenant, freed)
}

// PendingUpload is a marker of answer files not known to be claimed.
type PendingUpload struct {
	Name             string // the marker's blob
	At               time.Time
	Tenant, Slug, ID string
}

// PendingBefore lists up to max markers written before t, oldest first.
func (us *UploadStore) PendingBefore(ctx context.Context, t time.Time, max int) ([]PendingUpload, error) {
	page, err := us.st.ListBlobs(ctx, PendingUploadsContainer, storage.ListOptions{MaxResults: max})
	if isContainerNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err, "Pending uploads")
	}
	var out []PendingUpload
	for _, it := range page.Items {
		parts := strings.Split(it.Name, "/")
		if len(parts) != 4 {
			continue
		}
		ns, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			continue
		}
		at := time.Unix(0, ns)
		if !at.Before(t) {
			break // names sort by time
		}
		out = append(out, PendingUpload{Name: it.Name, At: at, Tenant: parts[1], Slug: parts[2], ID: parts[3]})
	}
	return out, nil
}

// Settled deletes a marker whose answer's files are settled.
func (us *UploadStore) Settled(ctx context.Context, p PendingUpload) error {
	if err := us.st.DeleteBlob(ctx, PendingUploadsContainer, p.Name, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Pending upload")
	}
	return nil
}

// Claimed are the keys of the files answer a names.
func Claimed(a *survey.SurveyAnswer) []string {
	var keys []string
	for _, qa := range a.Answers {
		if qa.Type != survey.FileUpload {
			continue
		}
		for _, f := range survey.DecodeFiles(qa.Answer) {
			keys = append(keys, f.Key)
		}
	}
	return keys
}

// usage is a tenant's stored upload bytes.
type usage struct {
	Bytes int64 `json:"bytes"`
}

// Usage is the bytes of files a tenant keeps (those pending included).
func (us *UploadStore) Usage(ctx context.Context, tenant string) (int64, error) {
	u, _, err := us.usage(ctx, tenant)
	return u.Bytes, err
}

func (us *UploadStore) usage(ctx context.Context, tenant string) (usage, string, error) {
	b, err := us.st.GetBlob(ctx, SystemContainer, usagePrefix+tenant)
	if isNotFound(err) {
		return usage{}, "", nil
	}
	if err != nil {
		return usage{}, "", mapErr(err, "Upload usage")
	}
	var u usage
	if err := json.Unmarshal(b.Data, &u); err != nil {
		return usage{}, "", fmt.Errorf("store: decode upload usage of %s: %w", tenant, err)
	}
	return u, b.ETag, nil
}

// ErrStorageFull: the tenant keeps as many files as its plan allows.
var ErrStorageFull = survey.Errorf(survey.EFORBIDDEN, "This survey cannot take more files: its organisation's storage is full.")

// Reserve takes n bytes of a tenant's upload storage, of quota bytes in
// all (0: no bound), with a conditional write: never more than quota,
// whatever instances and crashes do (a crash after it leaves the bytes
// taken, the conservative side). ErrStorageFull when they do not fit.
func (us *UploadStore) Reserve(ctx context.Context, tenant string, n, quota int64) error {
	return us.add(ctx, tenant, n, quota)
}

// Release gives back n bytes of a tenant's upload storage.
func (us *UploadStore) Release(ctx context.Context, tenant string, n int64) error {
	if n <= 0 {
		return nil
	}
	return us.add(ctx, tenant, -n, 0)
}

func (us *UploadStore) add(ctx context.Context, tenant string, n, quota int64) error {
	for attempt := 0; attempt < 20; attempt++ {
		u, etag, err := us.usage(ctx, tenant)
		if err != nil {
			return err
		}
		if n > 0 && quota > 0 && u.Bytes+n > quota {
			return ErrStorageFull
		}
		u.Bytes = max(0, u.Bytes+n)
		data, _ := json.Marshal(u)
		o := storage.PutOptions{ContentType: "application/json", IfMatch: etag}
		if etag == "" {
			o = storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
		}
		_, err = us.st.PutBlob(ctx, SystemContainer, usagePrefix+tenant, data, o)
		if isPrecondition(err) || errors.Is(err, storage.ErrExists) {
			continue
		}
		return mapErr(err, "Upload usage")
	}
	return survey.Errorf(survey.ECONFLICT, "Too many files are being sent at once; please try again.")
}
