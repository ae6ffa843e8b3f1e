package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// LogoStore keeps tenants' logos in the public logos container, named
// <tenant>-<random>.<ext>: a new upload gets a new name, so a logo's URL can
// be cached for ever.
type LogoStore struct {
	st storage.Storage
}

// NewLogoStore returns a LogoStore over st.
func NewLogoStore(st storage.Storage) *LogoStore { return &LogoStore{st: st} }

// Put checks and stores a tenant's logo, returning its blob name. Nothing
// is stored when the image is refused.
func (ls *LogoStore) Put(ctx context.Context, tenant string, data []byte) (string, error) {
	return ls.put(ctx, tenant, "logo", data)
}

// PutPicture checks and stores a picture of a tenant's picture choice
// question beside its logos, in the same way (its problems are of the
// field "picture"). A picture is not deleted with its survey, as a logo
// replaced is: a copy of the survey, or its definition exported, may
// still name it; deleting the tenant deletes them all.
func (ls *LogoStore) PutPicture(ctx context.Context, tenant string, data []byte) (string, error) {
	return ls.put(ctx, tenant, "picture", data)
}

// PutBackground checks and stores a theme's background image beside the
// logos, in the same way (its problems are of the field "image"). Like a
// picture it is not deleted when a theme stops naming it (a copy of the
// survey may still); deleting the tenant deletes them all.
func (ls *LogoStore) PutBackground(ctx context.Context, tenant string, data []byte) (string, error) {
	return ls.put(ctx, tenant, "image", data)
}

// CopyPicture stores the image name (of any tenant: the images are public)
// as a picture of tenant, checked again as an upload is, and gives its
// name; ENOTFOUND when there is no such image.
func (ls *LogoStore) CopyPicture(ctx context.Context, name, tenant string) (string, error) {
	data, _, err := ls.Get(ctx, name)
	if err != nil {
		return "", err
	}
	return ls.PutPicture(ctx, tenant, data)
}

func (ls *LogoStore) put(ctx context.Context, tenant, what string, data []byte) (string, error) {
	ct, ext, err := survey.CheckImage(data, what)
	if err != nil {
		return "", err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := tenant + "-" + hex.EncodeToString(b) + "." + ext
	if _, err := ls.st.PutBlob(ctx, LogosContainer, name, data, storage.PutOptions{ContentType: ct, IfNoneMatch: storage.ETagAny}); err != nil {
		return "", mapErr(err, "Logo")
	}
	return name, nil
}

// Get returns a logo's bytes and content type.
func (ls *LogoStore) Get(ctx context.Context, name string) ([]byte, string, error) {
	if storage.ValidateBlobName(name) != nil || strings.Contains(name, "/") {
		return nil, "", survey.Errorf(survey.ENOTFOUND, "Logo not found.")
	}
	b, err := ls.st.GetBlob(ctx, LogosContainer, name)
	if err != nil {
		return nil, "", mapErr(err, "Logo")
	}
	return b.Data, b.ContentType, nil
}

// Delete removes a tenant's logo; a logo of another tenant is refused.
func (ls *LogoStore) Delete(ctx context.Context, tenant, name string) error {
	if !strings.HasPrefix(name, tenant+"-") {
		return survey.Errorf(survey.EFORBIDDEN, "Not this tenant's logo.")
	}
	err := ls.st.DeleteBlob(ctx, LogosContainer, name, "")
	if survey.ErrorCode(mapErr(err, "Logo")) == survey.ENOTFOUND {
		return nil
	}
	return mapErr(err, "Logo")
}
