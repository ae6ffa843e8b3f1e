package web

import (
	"fmt"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// What a file upload question's input partial shows (templates/kinds/
// fileupload.input.html): the files already received, which the page
// state keeps (respond_pagestate.go), and what may be sent.

// Files are the files the respondent sent already for the question.
func (d kindInputData) Files() []survey.UploadedFile { return survey.DecodeFiles(d.Value) }

// ManyFiles reports whether the question takes more than one file.
func (d kindInputData) ManyFiles() bool {
	_, n, _ := survey.UploadLimits(d.Question, survey.Premium)
	return n > 1
}

// familyExtensions are the file name endings a file picker offers for
// each family, besides its MIME types (the server goes by content).
var familyExtensions = map[string]string{
	"PDF":              ".pdf",
	"Office documents": ".doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp",
	"Text and CSV":     ".txt,.csv,.tsv",
	"Images":           ".png,.jpg,.jpeg,.gif,.webp,.heic,.heif,.avif",
}

// Accept is the input's accept attribute: the question's kinds of file.
func (d kindInputData) Accept() string {
	var parts []string
	for _, fam := range survey.UploadFamilies(d.Question) {
		for _, f := range survey.FileFamilies {
			if f.Name == fam {
				parts = append(parts, f.Types...)
			}
		}
		if ext := familyExtensions[fam]; ext != "" {
			parts = append(parts, ext)
		}
	}
	return strings.Join(parts, ",")
}

// UploadHint says how many files of which kinds and sizes the question
// takes, in the respondent's language.
func (d kindInputData) UploadHint() string {
	_, n, size := survey.UploadLimits(d.Question, survey.Premium)
	kinds := make([]string, 0, len(survey.FileFamilies))
	for _, fam := range survey.UploadFamilies(d.Question) {
		kinds = append(kinds, d.T(fam))
	}
	if n == 1 {
		return d.T("One file of at most %d MB: %s.", size>>20, strings.Join(kinds, ", "))
	}
	return d.T("Up to %d files of at most %d MB each: %s.", n, size>>20, strings.Join(kinds, ", "))
}

// FileSize is a size in bytes for people: "812 bytes", "48 KB", "3.2 MB".
func (d kindInputData) FileSize(n int64) string { return fileSize(n) }

func fileSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}
