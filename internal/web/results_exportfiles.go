package web

import (
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The exports' cells of a question that takes files: with a configured
// public URL, per file, a link to download it (downloadFile, which asks
// the subscriber to sign in as any page of answers does), so that a
// subscriber can click it in the sheet: the URL itself in CSV, the file's
// name linked to it in XLSX (a HYPERLINK formula: the streamed sheet has
// no other links). The link is built from the configured public URL alone,
// never from the request's Host or a forwarded header, which whoever sends
// the request writes: without one, the cells name the files, as they did.

// fileURL is the path of file n (from 0) of answer a to question q.
func fileURL(tenant string, a *survey.SurveyAnswer, q survey.Question, n int) string {
	return "/" + tenant + "/surveys/" + a.Slug + "/answers/" + a.ID + "/files/" + q.ID + "/" + strconv.Itoa(n)
}

// exportFile is a file as an export's cell shows it.
type exportFile struct {
	Name, URL string
}

// fileCells are the cells of answer a to q, a question that takes files
// (one per column of its kind; a file past the last column shares the last
// cell), each the files it holds; nil when q takes no files or no public
// URL is configured (the kind's own cells then).
func (s *Server) fileCells(sv *survey.Survey, a *survey.SurveyAnswer, q survey.Question, qa survey.QuestionAnswer) [][]exportFile {
	if s.publicURL == "" || !survey.TakesFiles(q) || qa.Type != survey.FileUpload {
		return nil
	}
	k, ok := survey.KindOf(q.Type)
	if !ok {
		return nil
	}
	cells := make([][]exportFile, len(k.Columns(q)))
	if len(cells) == 0 {
		return nil
	}
	for i, f := range survey.DecodeFiles(qa.Answer) {
		at := min(i, len(cells)-1)
		cells[at] = append(cells[at], exportFile{Name: f.Name, URL: s.publicURL + fileURL(sv.Tenant, a, q, i)})
	}
	return cells
}

// csvFileCell is a cell of fileCells in CSV: the links, "; " between.
func csvFileCell(files []exportFile) string {
	urls := make([]string, len(files))
	for i, f := range files {
		urls[i] = f.URL
	}
	return csvCell(strings.Join(urls, "; "))
}

// xlsxFileCell is a cell of fileCells in XLSX: one file's name linked to
// it; several files (past the question's columns) their links as text.
func xlsxFileCell(files []exportFile) any {
	switch len(files) {
	case 0:
		return nil
	case 1:
		f := files[0]
		return excelize.Cell{Value: f.Name, Formula: "HYPERLINK(" + xlsxString(f.URL) + "," + xlsxString(f.Name) + ")"}
	}
	urls := make([]string, len(files))
	for i, f := range files {
		urls[i] = f.URL
	}
	return strings.Join(urls, "; ")
}

// xlsxString is s as a formula's string literal: in double quotes, each
// double quote doubled, so that a file's name is text and nothing else.
func xlsxString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
