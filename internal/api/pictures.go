package api

import (
	"context"
	"io"
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Pictures keeps the images of picture choice questions (store.LogoStore).
type Pictures interface {
	PutPicture(ctx context.Context, tenant string, data []byte) (string, error)
	PictureCopier
}

// jsonPicture is an image uploaded: its name, for a picture's "image",
// and where it is served.
type jsonPicture struct {
	Image string `json:"image"`
	URL   string `json:"url"`
}

// uploadPicture stores the request's body, a PNG or JPEG image checked
// from its bytes as a logo is, as the token's tenant's: 201 and its name.
// A server without pictures answers 404.
func (s *server) uploadPicture(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if s.Pictures == nil {
		return 0, nil, notFound("No such API endpoint.")
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, survey.MaxLogoBytes))
	if err != nil {
		return 0, nil, &survey.Error{Code: survey.EINVALID, Message: "The picture was not saved.",
			Fields: map[string]string{"picture": "A picture is at most 512 KiB."}}
	}
	name, err := s.Pictures.PutPicture(r.Context(), tenantOf(r), data)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, jsonPicture{Image: name, URL: "/logos/" + name}, nil
}
