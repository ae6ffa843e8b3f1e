package web

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The pictures of a picture choice question (survey.Settings.Pictures) in
// the designer: a row per picture, fields q.<i>.pictures.<j>.label,
// .alt, .image (the name of its uploaded image, hidden) and .file (an
// image to upload, which takes the place of .image). The designer's form
// is multipart, so that the files go with it without JavaScript; each
// post uploads the files it carries (whatever its button), so that a
// picture chosen is not lost when the page comes back with problems.

// designerPicture is a row of a question's pictures as typed.
type designerPicture struct {
	Label, Alt, Image string
	// from is the row's place in the posted form (its file field's).
	from int
}

// designerPictureRow is a row as the designer shows it: N its place.
type designerPictureRow struct {
	N                 int
	Label, Alt, Image string
}

// Num is the row's number for people, from 1.
func (r designerPictureRow) Num() int { return r.N + 1 }

// Src is the URL of the row's image.
func (r designerPictureRow) Src() string { return "/logos/" + r.Image }

// maxDesignerBody bounds the designer's form: its fields (1 MiB, as
// before pictures) and a few pictures at most a logo's size each.
const (
	maxDesignerFields   = 1 << 20
	maxDesignerPictures = 10
	maxDesignerBody     = maxDesignerFields + maxDesignerPictures*(survey.MaxLogoBytes+4<<10)
)

// parsePictures reads the rows of question p's pictures ("q.<i>."), as
// posted: every row the form has, empty ones too (compactPictures drops
// them once their files are read).
func parsePictures(f url.Values, p string) []designerPicture {
	var out []designerPicture
	for j := 0; j < survey.MaxPictures+3; j++ {
		k := p + "pictures." + strconv.Itoa(j) + "."
		_, l := f[k+"label"]
		_, a := f[k+"alt"]
		_, i := f[k+"image"]
		if l || a || i {
			out = append(out, designerPicture{Label: f.Get(k + "label"), Alt: f.Get(k + "alt"), Image: f.Get(k + "image"), from: j})
		}
	}
	return out
}

// pictureLabels is the rows' labels, one a line (the choices a change of
// kind to another choice question keeps).
func pictureLabels(ps []designerPicture) string {
	var ls []string
	for _, p := range ps {
		if l := strings.TrimSpace(p.Label); l != "" {
			ls = append(ls, l)
		}
	}
	return strings.Join(ls, "\n")
}

// PictureRows are the rows the designer shows: the question's pictures,
// then empty rows to add more (two, or up to two pictures in all), up to
// survey.MaxPictures.
func (q designerQuestion) PictureRows() []designerPictureRow {
	n := min(survey.MaxPictures, max(len(q.Pictures)+2, 3))
	n = max(n, len(q.Pictures))
	rows := make([]designerPictureRow, n)
	for j := range rows {
		rows[j].N = j
		if j < len(q.Pictures) {
			p := q.Pictures[j]
			rows[j].Label, rows[j].Alt, rows[j].Image = p.Label, p.Alt, p.Image
		}
	}
	return rows
}

// surveyPictures are the rows as the question's pictures, without the
// empty ones.
func surveyPictures(ps []designerPicture) []survey.Picture {
	var out []survey.Picture
	for _, p := range ps {
		if !emptyPicture(p) {
			out = append(out, survey.Picture{Label: p.Label, Alt: p.Alt, Image: p.Image})
		}
	}
	return out
}

// designerPicturesOf are a question's pictures as rows.
func designerPicturesOf(ps []survey.Picture) []designerPicture {
	out := make([]designerPicture, len(ps))
	for i, p := range ps {
		out[i] = designerPicture{Label: p.Label, Alt: p.Alt, Image: p.Image, from: i}
	}
	return out
}

// emptyPicture reports whether a row holds nothing (as survey.Picture's
// normalize sees it).
func emptyPicture(p designerPicture) bool {
	for _, v := range []string{p.Label, p.Alt, p.Image} {
		if strings.TrimSpace(survey.CleanLine(v)) != "" {
			return false
		}
	}
	return true
}

// uploadPictures stores the images the designer's form carries, each as
// its row's image (and in the posted form, which a confirmation page
// posts again), and drops the rows left empty, so that the rows are the
// question's pictures in the order Validate counts them. It returns the
// problems of the images refused, beside their rows.
func (s *Server) uploadPictures(r *http.Request, page *designerPage) map[string]string {
	var problems map[string]string
	refuse := func(key, msg string) {
		if problems == nil {
			problems = map[string]string{}
		}
		problems[key] = msg
	}
	uploads := 0
	for i := range page.Questions {
		q := &page.Questions[i]
		kept := q.Pictures[:0]
		for _, p := range q.Pictures {
			field := "q." + strconv.Itoa(q.orig) + ".pictures." + strconv.Itoa(p.from) + "."
			key := "questions." + strconv.Itoa(i) + ".pictures." + strconv.Itoa(len(kept)) + ".image"
			data, sent, err := formFile(r, field+"file")
			switch {
			case !sent:
			case err != nil:
				refuse(key, "The picture could not be read; try again.")
			case s.logos == nil:
				refuse(key, "Pictures cannot be uploaded on this server.")
			case uploads == maxDesignerPictures:
				refuse(key, "Upload at most "+strconv.Itoa(maxDesignerPictures)+" pictures at a time; choose this one again.")
			default:
				uploads++
				name, err := s.logos.PutPicture(r.Context(), page.Tenant, data)
				var e *survey.Error
				switch {
				case errors.As(err, &e) && e.Code == survey.EINVALID:
					refuse(key, e.Fields["picture"])
				case err != nil:
					s.log.Error("designer: store a picture", "tenant", page.Tenant, "err", err)
					refuse(key, "The picture could not be saved; try again.")
				default:
					p.Image = name
					r.PostForm.Set(field+"image", name)
				}
			}
			if !emptyPicture(p) {
				kept = append(kept, p)
			}
		}
		q.Pictures = kept
		if q.Settings.Pictures {
			q.Choices = pictureLabels(kept)
		}
	}
	return problems
}

// formFile is the bytes of the file of field name in a multipart form
// (at most survey.MaxLogoBytes+1 of them, for the check to refuse), and
// whether one was sent at all.
func formFile(r *http.Request, name string) ([]byte, bool, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File[name]) == 0 {
		return nil, false, nil
	}
	fh := r.MultipartForm.File[name][0]
	if fh.Size == 0 && fh.Filename == "" {
		return nil, false, nil // the browser's empty file input
	}
	f, err := fh.Open()
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, survey.MaxLogoBytes+1))
	return data, true, err
}

// pictureErrorKeys are the keys of q's problems of its pictures'
// fields ("pictures.N.label", ".alt", ".image"), in the page's order.
func pictureErrorKeys(errs map[string]string) []string {
	var keys []string
	for k := range errs {
		if strings.HasPrefix(k, "pictures.") {
			keys = append(keys, k)
		}
	}
	order := map[string]int{"label": 0, "alt": 1, "image": 2}
	sort.Slice(keys, func(a, b int) bool {
		na, fa := pictureKey(keys[a])
		nb, fb := pictureKey(keys[b])
		if na != nb {
			return na < nb
		}
		return order[fa] < order[fb]
	})
	return keys
}

// pictureKey parts "pictures.N.field" into N and field.
func pictureKey(k string) (int, string) {
	parts := strings.Split(k, ".")
	if len(parts) != 3 {
		return -1, ""
	}
	n, _ := strconv.Atoi(parts[1])
	return n, parts[2]
}
