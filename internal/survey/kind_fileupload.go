package survey

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// FileUpload is the type of a question answered with files.
const FileUpload QuestionType = "FileUpload"

// fileUpload is one to a few files a respondent sends. Its settings
// reuse a question's fields: PossibleAnswers are the kinds of file it
// takes (FileFamilies' names; none: all of them), Min and Max bound the
// number of files (Max defaults to 1, at most MaxUploadFiles), and Scale
// is the largest file in MB (DefaultUploadMB when unset, at most
// MaxUploadMB; the tenant's plan may allow less, PlanLimits.UploadMB).
//
// The domain never sees a file's bytes: the web side streams each file to
// blob storage, its type found from its content, and sends this kind the
// files' descriptions, which the respondent cannot write (they come from
// the server, or the page state it sealed). Stored canonically as a JSON
// array of UploadedFile, in the order sent:
// [{"name":"cv.pdf","size":48213,"type":"application/pdf","key":"…"}].
// Its summary counts the files of each kind (Choices).
type fileUpload struct{}

// Bounds of a file upload question.
const (
	MaxUploadFiles  = 5
	MaxUploadMB     = 100
	DefaultUploadMB = 10
	// MaxFileNameLength bounds the name a file is kept under, in
	// characters.
	MaxFileNameLength = 200
)

// UploadedFile is one file of an answer: its name as the respondent's
// device gave it (cleaned, without its folders), its size in bytes, its
// type as its content says (a MIME type), and Key, which names its blobs
// (the store's): the answer's ID, "/", and 16 random hex digits.
type UploadedFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type"`
	Key  string `json:"key"`
}

// FileFamily is a kind of file a question may take: a name for people
// and the MIME types (as content sniffing gives them, without
// parameters) that are of it.
type FileFamily struct {
	Name  string
	Types []string
}

// FileFamilies are the kinds of file an upload question may take. No
// family takes a type a browser would run (HTML, SVG, scripts); files
// are only ever downloaded, never shown, whatever their type.
var FileFamilies = []FileFamily{
	{Name: "Images", Types: []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif"}},
	{Name: "PDF", Types: []string{"application/pdf"}},
	{Name: "Office documents", Types: []string{
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation",
		"application/vnd.oasis.opendocument.text",
		"application/vnd.oasis.opendocument.spreadsheet",
		"application/vnd.oasis.opendocument.presentation",
		"application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
		"application/x-ole-storage",
	}},
	{Name: "Text and CSV", Types: []string{"text/plain", "text/csv", "text/tab-separated-values"}},
}

// FamilyOf names the family of MIME type t ("" for none).
func FamilyOf(t string) string {
	t, _, _ = strings.Cut(t, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	for _, f := range FileFamilies {
		if contains(f.Types, t) {
			return f.Name
		}
	}
	return ""
}

// UploadFamilies are the families question q takes: its own, or all.
func UploadFamilies(q Question) []string {
	if len(q.PossibleAnswers) > 0 {
		return q.PossibleAnswers
	}
	out := make([]string, len(FileFamilies))
	for i, f := range FileFamilies {
		out[i] = f.Name
	}
	return out
}

// TakesFiles reports whether q is answered with files (Settings.Files).
func TakesFiles(q Question) bool { return filesTypes()[q.Type] }

// filesTypes are the types of the kinds answered with files, read from
// the kinds once (after the package's variables are set, which their
// Settings may be): TakesFiles is asked of every question, several times
// for every answer sent.
var filesTypes = sync.OnceValue(func() map[QuestionType]bool {
	m := map[QuestionType]bool{}
	for _, k := range kinds {
		if k.Settings().Files {
			m[k.Type()] = true
		}
	}
	return m
})

// HasUploads reports whether a question of s is answered with files.
func (s *Survey) HasUploads() bool {
	for _, q := range s.Questions {
		if TakesFiles(q) {
			return true
		}
	}
	return false
}

// UploadAccepts reports whether q takes a file of MIME type t.
func UploadAccepts(q Question, t string) bool {
	fam := FamilyOf(t)
	return fam != "" && contains(UploadFamilies(q), fam)
}

// UploadLimits are the number of files q takes at least and at most, and
// the largest file in bytes, within the plan's limits.
func UploadLimits(q Question, p Plan) (minFiles, maxFiles int, maxBytes int64) {
	minFiles, _ = parseCount(q.Min)
	maxFiles = 1
	if n, ok := parseCount(q.Max); ok && n > 0 {
		maxFiles = min(n, MaxUploadFiles)
	}
	mb := q.Scale
	if mb <= 0 {
		mb = DefaultUploadMB
	}
	if lim := p.Limits().UploadMB; lim > 0 {
		mb = min(mb, lim)
	}
	return minFiles, maxFiles, int64(min(mb, MaxUploadMB)) << 20
}

// uploadKey is the shape of an UploadedFile's Key.
var uploadKey = regexp.MustCompile(`^[0-9]{19}-[0-9a-f]{6}/[0-9a-f]{16}$`)

// ValidUploadKey reports whether key has the shape of an UploadedFile's
// Key.
func ValidUploadKey(key string) bool { return uploadKey.MatchString(key) }

// CleanFileName is the name a file is kept under: the last element of the
// name a device sent (no folders), cleaned of control characters and
// direction overrides, at most MaxFileNameLength characters; "file" when
// nothing is left.
func CleanFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(CleanLine(name))
	name = strings.TrimLeft(name, ".")
	if r := []rune(name); len(r) > MaxFileNameLength {
		name = string(r[len(r)-MaxFileNameLength:])
	}
	if name == "" {
		return "file"
	}
	return name
}

// EncodeFiles is the stored answer of files ("" for none).
func EncodeFiles(files []UploadedFile) string {
	if len(files) == 0 {
		return ""
	}
	return encodeJSON(files)
}

// DecodeFiles reads a stored answer of an upload question; nil when it
// is not one.
func DecodeFiles(stored string) []UploadedFile {
	if stored == "" {
		return nil // no files sent: what encoding/json's error gave, without it
	}
	if files, ok := plainFiles(stored); ok {
		return files
	}
	var files []UploadedFile
	if json.Unmarshal([]byte(stored), &files) != nil {
		return nil
	}
	return files
}

func (fileUpload) Type() QuestionType { return FileUpload }
func (fileUpload) Key() string        { return "fileupload" }
func (fileUpload) Label() string      { return "File upload" }
func (fileUpload) Settings() Settings { return fileUploadSettings }

// fileUploadSettings are made once: TakesFiles asks for them for every
// question of every answer sent (and its hint is built from every family's
// name).
var fileUploadSettings = Settings{Choices: true, MaxChoices: len(FileFamilies), Bounds: "files", Scale: true, Files: true,
	ScaleName: "Largest file, in MB", ScaleTops: []int{1, 2, 5, 10, 25, 50, 100},
	ChoicesName: "Kinds of file", ChoicesHint: "One per line among " + familyNames() + "; none takes them all"}

// normalize writes each family as FileFamilies names it (all of them
// when none is chosen), and the counts canonically.
func (fileUpload) normalize(q *Question) {
	fams := normalizeLines(q.PossibleAnswers)
	for i, name := range fams {
		for _, f := range FileFamilies {
			if strings.EqualFold(f.Name, name) {
				fams[i] = f.Name
			}
		}
	}
	if len(fams) == 0 {
		// None chosen: all of them, said explicitly, so that a summary
		// made from the definition counts every family in one order.
		fams = UploadFamilies(Question{})
	}
	q.PossibleAnswers = fams
	q.Min, q.Max = canonicalCount(q.Min), canonicalCount(q.Max)
	if q.Scale == 0 {
		q.Scale = DefaultUploadMB
	}
}

func (fileUpload) validate(q Question, key string, f fieldErrors) {
	seen := map[string]bool{}
	for _, name := range q.PossibleAnswers {
		known := false
		for _, fam := range FileFamilies {
			known = known || fam.Name == name
		}
		switch {
		case !known:
			f.add(key+".choices", "Choose kinds of file among %s (one per line), or none for all of them.", familyNames())
		case seen[name]:
			f.add(key+".choices", "%q is listed twice.", name)
		}
		seen[name] = true
	}
	min, max := 0, 1
	for _, b := range []struct {
		text, field, what string
		n                 *int
	}{{q.Min, key + ".min", "least", &min}, {q.Max, key + ".max", "most", &max}} {
		if b.text == "" {
			continue
		}
		n, ok := parseCount(b.text)
		switch {
		case !ok || n > MaxUploadFiles:
			f.add(b.field, "Give the number of files at %s as a whole number from 0 to %d.", b.what, MaxUploadFiles)
		case b.what == "most" && n == 0:
			f.add(b.field, "Let respondents send at least one file, or leave the maximum empty.")
		default:
			*b.n = n
		}
	}
	if min > max {
		f.add(key+".max", "The most files cannot be fewer than the least (%d).", min)
	}
	if q.Scale < 1 || q.Scale > MaxUploadMB {
		f.add(key+".scale", "The largest file is 1 to %d MB (not %d).", MaxUploadMB, q.Scale)
	}
}

// familyNames lists the families for people.
func familyNames() string {
	names := make([]string, len(FileFamilies))
	for i, f := range FileFamilies {
		names[i] = strconv.Quote(f.Name)
	}
	return strings.Join(names, ", ")
}

func (fileUpload) required() Msg { return M("Please choose a file to send.") }

// answer checks the files' descriptions the server made: their number,
// sizes and kinds against the question's settings (the plan's bound on
// sizes is the server's, which wrote no larger file).
func (fileUpload) answer(q Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" {
		return "", Msg{}
	}
	files := DecodeFiles(v)
	if files == nil {
		return "", M("Please send your file again.")
	}
	minFiles, maxFiles, _ := UploadLimits(q, Premium)
	switch {
	case len(files) > maxFiles:
		return "", M("Please send at most %d files (there are %d).", maxFiles, len(files))
	case len(files) < minFiles:
		return "", M("Please send at least %d files (there are %d).", minFiles, len(files))
	}
	limit := int64(max(q.Scale, 1)) << 20
	keys := map[string]bool{}
	for i := range files {
		fl := &files[i]
		fl.Name = CleanFileName(fl.Name)
		fl.Type, _, _ = strings.Cut(fl.Type, ";")
		fl.Type = strings.ToLower(strings.TrimSpace(fl.Type))
		switch {
		case !ValidUploadKey(fl.Key) || keys[fl.Key]:
			return "", M("Please send your file again.")
		case fl.Size < 0 || fl.Size > limit:
			return "", M("Please send files of at most %d MB (%q is larger).", max(q.Scale, 1), fl.Name)
		case !UploadAccepts(q, fl.Type):
			return "", M("Please send a file of one of these kinds: %s (%q is not).", strings.Join(UploadFamilies(q), ", "), fl.Name)
		case !utf8.ValidString(fl.Name):
			return "", M("Please send your file again.")
		}
		keys[fl.Key] = true
	}
	return EncodeFiles(files), Msg{}
}

func (fileUpload) form(_ Question, stored string) Form { return Value(stored) }

// newSummary counts the question's families, in its order (none, for a
// summary made from an answer alone: families are added as files come).
func (fileUpload) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, fam := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: fam})
	}
}

// add counts each file under its family.
func (fileUpload) add(qs *QuestionAnswersSummary, answer string) {
	for _, fl := range DecodeFiles(answer) {
		if fam := FamilyOf(fl.Type); fam != "" {
			qs.Choices = addChoice(qs.Choices, fam)
		}
	}
}

// Chart: the files of each kind; never a file's name.
func (fileUpload) Chart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Labels: []string{}, Counts: []int64{}}
	var n int64
	for _, cc := range qs.Choices {
		c.Labels, c.Counts = append(c.Labels, cc.Answer), append(c.Counts, cc.Count)
		n += cc.Count
	}
	c.Figures = []Figure{{Label: "Files", Value: strconv.FormatInt(n, 10)}}
	return c
}

// Columns: a cell per file the question takes.
func (fileUpload) Columns(q Question) []string {
	_, n, _ := UploadLimits(q, Premium)
	if n == 1 {
		return []string{""}
	}
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("file %d", i+1)
	}
	return cols
}

func (k fileUpload) CellTypes(q Question) []CellType { return cellTypes(len(k.Columns(q)), CellText) }

// Cells: each file's name; the answer page links to the file itself.
func (k fileUpload) Cells(q Question, qa QuestionAnswer) []string {
	cells := make([]string, len(k.Columns(q)))
	files := DecodeFiles(qa.Answer)
	for i := range cells {
		if i < len(files) {
			cells[i] = files[i].Name
		}
	}
	if len(files) > len(cells) && len(cells) > 0 {
		// The question takes fewer files since: the last cell names the
		// rest too.
		var rest []string
		for _, fl := range files[len(cells)-1:] {
			rest = append(rest, fl.Name)
		}
		cells[len(cells)-1] = strings.Join(rest, "; ")
	}
	return cells
}

// uploadValue is a file as an answer's JSON value: no key.
type uploadValue struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type"`
}

func (fileUpload) Value(_ Question, qa QuestionAnswer) any {
	files := DecodeFiles(qa.Answer)
	if len(files) == 0 {
		return nil
	}
	out := make([]uploadValue, len(files))
	for i, fl := range files {
		out[i] = uploadValue{fl.Name, fl.Size, fl.Type}
	}
	return out
}

// SQLRows: one row per file, its position as the item (two files may
// share a name), its name as the text, its size as the number.
func (fileUpload) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	files := DecodeFiles(qa.Answer)
	if len(files) == 0 {
		return []SQLRow{{}}
	}
	rows := make([]SQLRow, len(files))
	for i, fl := range files {
		rows[i] = SQLRow{Item: strconv.Itoa(i + 1), Text: fl.Name, Number: strconv.FormatInt(fl.Size, 10)}
	}
	return rows
}

// StatVars: those of the CSV export's columns, as they are.
func (k fileUpload) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k fileUpload) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
